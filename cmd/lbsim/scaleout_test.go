//go:build !js

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The scale-out recipes of docs/scale-out.md and deploy/ are run here as
// written, with this test binary standing in for the lbsim command: each
// shard's file is written by the recipe, and together they must hold
// exactly the lines of the same sweep run unsharded.

// commandDir returns a directory holding an `lbsim` that runs this test
// binary as the command (see TestMain), and stubs named in stubs that just
// run their arguments (like srun outside a cluster).
func commandDir(t *testing.T, stubs ...string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nLBSIM_AS_COMMAND=1 exec " + strconv.Quote(os.Args[0]) + " -test.run='^$' -- \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "lbsim"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range stubs {
		if err := os.WriteFile(filepath.Join(dir, s), []byte("#!/bin/sh\nexec \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// shell runs a script with sh (or bash) in dir with extra environment.
func shell(t *testing.T, bin, shellName, script, dir string, env ...string) string {
	t.Helper()
	out, err := runShell(bin, shellName, script, dir, append([]string{"PARALLEL=--will-cite"}, env...)...)
	if err != nil {
		t.Fatalf("%s -c %q: %v\n%s", shellName, script, err, out)
	}
	return out
}

// runShell runs a script with shellName in dir, the commands of bin
// first on the path, with extra environment, and returns its output.
func runShell(bin, shellName, script, dir string, env ...string) (string, error) {
	cmd := exec.Command(shellName, "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"PATH=" + bin + ":" + os.Getenv("PATH")}, env...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// sameRuns checks that the files matching got hold the lines of the files
// matching want, compared as sets of parsed objects with repeats counted.
func sameRuns(t *testing.T, got, want string, shards int) {
	t.Helper()
	read := func(pattern string) ([]string, int) {
		files, _ := filepath.Glob(pattern)
		var lines []string
		for _, f := range files {
			if data := readFile(t, f); len(data) > 0 {
				lines = append(lines, parsed(t, fileLines(t, f))...)
			}
		}
		slices.Sort(lines)
		return lines, len(files)
	}
	g, nfiles := read(got)
	w, _ := read(want)
	if nfiles != shards {
		t.Errorf("%d shard files, want %d", nfiles, shards)
	}
	if len(w) == 0 || !slices.Equal(g, w) {
		t.Errorf("the shards hold %d lines, the unsharded sweep %d; they differ", len(g), len(w))
	}
}

func TestScaleOutParallelRecipe(t *testing.T) {
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed (make deps installs it)")
	}
	doc := string(readFile(t, "../../docs/scale-out.md"))
	_, after, ok := strings.Cut(doc, "<!-- recipe: parallel")
	_, block, ok2 := strings.Cut(after, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 || strings.Count(block, "SHARDS=4\n") != 1 {
		t.Fatal("docs/scale-out.md has no parallel recipe block with SHARDS=4")
	}
	bin := commandDir(t)
	sharded, whole := t.TempDir(), t.TempDir()
	out := shell(t, bin, "bash", block, sharded)
	if !strings.Contains(out, "rate  policy") {
		t.Errorf("the recipe's aggregate printed no table:\n%s", out)
	}
	shell(t, bin, "bash", strings.Replace(block, "SHARDS=4\n", "SHARDS=1\n", 1), whole)
	sameRuns(t, filepath.Join(sharded, "shard-*.jsonl"), filepath.Join(whole, "shard-*.jsonl"), 4)
}

// indexedJob is the part of a Kubernetes Job the test reads.
type indexedJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name string `yaml:"name"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func TestScaleOutKubernetesJob(t *testing.T) {
	var job indexedJob
	if err := yaml.Unmarshal(readFile(t, "../../deploy/lbsim-sweep-job.yaml"), &job); err != nil {
		t.Fatal(err)
	}
	pod := job.Spec.Template.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" || len(pod.Containers) != 1 {
		t.Fatalf("not one container of an Indexed batch/v1 Job: %+v", job)
	}
	ctr := pod.Containers[0]
	shards := 0
	for _, e := range ctr.Env {
		if e.Name == "SHARDS" {
			shards, _ = strconv.Atoi(e.Value)
		}
	}
	if shards < 2 || job.Spec.Completions != shards || job.Spec.Parallelism != shards {
		t.Errorf("completions %d, parallelism %d and SHARDS %d must be equal (and > 1)", job.Spec.Completions, job.Spec.Parallelism, shards)
	}
	if !slices.Equal(ctr.Command, []string{"sh", "-c"}) || len(ctr.Args) != 1 || pod.RestartPolicy != "Never" {
		t.Fatalf("want command sh -c, one script, restartPolicy Never: %v %v %s", ctr.Command, ctr.Args, pod.RestartPolicy)
	}
	script := ctr.Args[0]
	for _, want := range []string{`--shard "${JOB_COMPLETION_INDEX}/${SHARDS}"`, `shard-${JOB_COMPLETION_INDEX}.jsonl"`, "--resume", "--seed ", "exec lbsim sweep "} {
		if !strings.Contains(script, want) {
			t.Errorf("the pod's command has no %s: %s", want, script)
		}
	}
	// --out is on a mounted volume that the pod declares.
	m := regexp.MustCompile(`--out "([^"]*)/shard-`).FindStringSubmatch(script)
	mounted := false
	for _, vm := range ctr.VolumeMounts {
		if m != nil && vm.MountPath == m[1] && slices.ContainsFunc(pod.Volumes, func(v struct {
			Name string `yaml:"name"`
		}) bool {
			return v.Name == vm.Name
		}) {
			mounted = true
		}
	}
	if !mounted {
		t.Fatalf("--out is not on a declared, mounted volume: %v %+v", m, ctr.VolumeMounts)
	}
	// Run every pod's command as Kubernetes would, the volume a directory.
	bin := commandDir(t)
	sharded, whole := t.TempDir(), t.TempDir()
	for i := range shards {
		shell(t, bin, "sh", strings.ReplaceAll(script, m[1], sharded), sharded, "JOB_COMPLETION_INDEX="+strconv.Itoa(i), "SHARDS="+strconv.Itoa(shards))
	}
	shell(t, bin, "sh", strings.ReplaceAll(script, m[1], whole), whole, "JOB_COMPLETION_INDEX=0", "SHARDS=1")
	sameRuns(t, filepath.Join(sharded, "shard-*.jsonl"), filepath.Join(whole, "shard-*.jsonl"), shards)
}

func TestScaleOutSlurmArray(t *testing.T) {
	script := string(readFile(t, "../../deploy/lbsim-sweep.slurm"))
	m := regexp.MustCompile(`(?m)^#SBATCH --array=0-(\d+)$`).FindStringSubmatch(script)
	s := regexp.MustCompile(`(?m)^SHARDS=(\d+)$`).FindStringSubmatch(script)
	if m == nil || s == nil {
		t.Fatal("the script has no #SBATCH --array=0-LAST or no SHARDS=N")
	}
	last, _ := strconv.Atoi(m[1])
	shards, _ := strconv.Atoi(s[1])
	if last+1 != shards || shards < 2 {
		t.Fatalf("--array=0-%d runs %d tasks, but SHARDS=%d", last, last+1, shards)
	}
	for _, want := range []string{`--shard "${SLURM_ARRAY_TASK_ID}/${SHARDS}"`, `--out "results/shard-${SLURM_ARRAY_TASK_ID}.jsonl"`, "--resume", "srun lbsim sweep "} {
		if !strings.Contains(script, want) {
			t.Errorf("the script has no %s", want)
		}
	}
	bin := commandDir(t, "srun")
	sharded, whole := t.TempDir(), t.TempDir()
	for _, d := range []string{sharded, whole} {
		os.Mkdir(filepath.Join(d, "results"), 0o755)
	}
	for i := range shards {
		shell(t, bin, "bash", script, sharded, "SLURM_ARRAY_TASK_ID="+strconv.Itoa(i))
	}
	shell(t, bin, "bash", strings.Replace(script, s[0], "SHARDS=1", 1), whole, "SLURM_ARRAY_TASK_ID=0")
	sameRuns(t, filepath.Join(sharded, "results", "shard-*.jsonl"), filepath.Join(whole, "results", "shard-*.jsonl"), shards)
}
