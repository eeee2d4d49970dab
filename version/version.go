// Package version reads what the Go toolchain recorded about the running
// program: the main module's version and the version-control revision it
// was built from (runtime/debug.ReadBuildInfo). lbsim version prints it,
// snapshots store it (snapshot.EngineVersion) and JSON reports carry it.
// It is informational: nothing is refused for a version.
package version

import (
	"runtime/debug"
	"strings"
)

// Info is what the build recorded. Fields the build did not record are
// empty: a binary built with -buildvcs=false (or outside a repository)
// has no revision, and one built from source reports the version
// "(devel)".
type Info struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`     // the revision's commit time (RFC 3339)
	Modified bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	Go       string `json:"go"`                 // the toolchain
}

// revision is the VCS revision given at link time (make build passes
// -ldflags -X …/version.revision=$(git rev-parse HEAD)), for
// builds where the toolchain records none (-buildvcs=false, a git
// worktree it does not recognise, and WebAssembly, which it never
// stamps: make web passes the same, so the page says what the CLI says).
var revision string

// modified is "true" when the build given revision was made from a tree
// with uncommitted changes (make passes -X …/version.modified=true when git
// status --porcelain says anything, the test the toolchain's stamp uses).
var modified string

// Read returns the running program's build information.
func Read() Info {
	in := Info{Version: "(devel)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		in = FromBuildInfo(bi)
	}
	if in.Revision == "" {
		in.Revision, in.Modified = revision, revision != "" && modified == "true"
	}
	return in
}

// FromBuildInfo reads bi (tests give their own).
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// Short is the version in one word: the module version ("v1.2.0", or
// "devel" for a build from source), then the first 12 digits of the
// revision when one was recorded ("devel+94ec452d1f3e"), and "-modified"
// for a tree with uncommitted changes. A module version made from the
// revision already (a pseudo-version) is not repeated.
func (in Info) Short() string {
	v := in.Version
	if v == "(devel)" {
		v = "devel"
	}
	if rev := in.Revision; rev != "" {
		rev = rev[:min(12, len(rev))]
		if !strings.Contains(v, rev) {
			v += "+" + rev
		}
	}
	if in.Modified && !strings.Contains(v, "dirty") {
		v += "-modified"
	}
	return v
}

// String is the line lbsim version prints: "lbsim SHORT (MODULE, built
// with GO, revision REV of TIME)".
func (in Info) String() string {
	var b strings.Builder
	b.WriteString("lbsim " + in.Short())
	var parts []string
	if in.Module != "" {
		parts = append(parts, in.Module)
	}
	if in.Go != "" {
		parts = append(parts, "built with "+in.Go)
	}
	switch {
	case in.Revision != "" && in.Time != "":
		parts = append(parts, "revision "+in.Revision+" of "+in.Time)
	case in.Revision != "":
		parts = append(parts, "revision "+in.Revision)
	default:
		parts = append(parts, "no revision recorded (built with -buildvcs=false or outside git)")
	}
	b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	return b.String()
}
