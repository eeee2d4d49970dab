// Package sweep runs many simulations over a grid of settings and keeps
// their results in a JSON Lines file, one line per run.
//
// A [Grid] is the product of its dimensions (each a setting name and its
// values, from --vary) times a number of replications. Its runs are
// numbered in a fixed order: grid points in the order the dimensions are
// listed, the first dimension changing slowest and the last fastest, and
// the replications of a point innermost. Replication r of every point uses
// seed base+r, so points are compared on the same random streams (paired).
//
// A [Shard] I/N takes the runs whose number is ≡ I mod N: N shards together
// hold exactly the runs of the whole grid. [Execute] runs a sequence of
// runs on several workers and writes their lines in run order, each line
// with a single write, so an interrupted file holds whole lines only; if
// the machine dies during a write, [ReadFile] drops the partial last line
// before a resumed sweep appends. [Aggregate] merges the lines of several
// files, reports missing and repeated runs, and gives each point's metrics
// a mean and a 95% Student t interval over its replications.
package sweep
