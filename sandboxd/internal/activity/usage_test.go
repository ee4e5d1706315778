package activity

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// write lays out files under root: path → content.
func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCgroupFigures(t *testing.T) {
	cases := []struct {
		name  string
		self  string
		files map[string]string
		want  cgroupStats
	}{
		{
			name: "v2 inside a cgroup namespace: the mount is the Pod's cgroup",
			self: "0::/\n",
			files: map[string]string{
				"cgroup.controllers": "cpu memory pids",
				"cpu.stat":           "usage_usec 2500000\nuser_usec 2000000\nnr_throttled 3\nthrottled_usec 400000\n",
				"cpu.max":            "150000 100000\n",
				"memory.current":     "104857600\n",
				"memory.stat":        "anon 1\ninactive_file 4857600\n",
				"memory.max":         "536870912\n",
			},
			want: cgroupStats{cpuNanos: 2_500_000_000, throttledNanos: 400_000_000, memory: 100_000_000, memoryLimit: 536870912, cpuLimit: 1.5, ok: true},
		},
		{
			name: "v2 without limits",
			self: "0::/\n",
			files: map[string]string{
				"cgroup.controllers": "cpu memory",
				"cpu.stat":           "usage_usec 10\n",
				"cpu.max":            "max 100000\n",
				"memory.current":     "1000\n",
				"memory.max":         "max\n",
			},
			want: cgroupStats{cpuNanos: 10_000, memory: 1000, ok: true},
		},
		{
			name: "v1 without a cgroup namespace: the path under each controller's mount",
			self: "4:memory:/kubepods/pod1/c1\n2:cpu,cpuacct:/kubepods/pod1/c1\n",
			files: map[string]string{
				"cpuacct/kubepods/pod1/c1/cpuacct.usage":        "7000000000\n",
				"cpu/kubepods/pod1/c1/cpu.stat":                 "nr_periods 10\nnr_throttled 2\nthrottled_time 300\n",
				"cpu/kubepods/pod1/c1/cpu.cfs_quota_us":         "50000\n",
				"cpu/kubepods/pod1/c1/cpu.cfs_period_us":        "100000\n",
				"memory/kubepods/pod1/c1/memory.usage_in_bytes": "2000\n",
				"memory/kubepods/pod1/c1/memory.stat":           "cache 5\ntotal_inactive_file 500\n",
				"memory/kubepods/pod1/c1/memory.limit_in_bytes": "9223372036854771712\n",
			},
			want: cgroupStats{cpuNanos: 7_000_000_000, throttledNanos: 300, memory: 1500, cpuLimit: 0.5, ok: true},
		},
		{
			name: "v1 inside a namespace (devnode, containerd): the mounts are the Pod's cgroup",
			self: "4:memory:/\n3:cpuacct:/\n2:cpu:/\n",
			files: map[string]string{
				"cpuacct/cpuacct.usage":        "42\n",
				"cpu/cpu.cfs_quota_us":         "-1\n",
				"memory/memory.usage_in_bytes": "100\n",
				"memory/memory.limit_in_bytes": "1048576\n",
			},
			want: cgroupStats{cpuNanos: 42, memory: 100, memoryLimit: 1048576, ok: true},
		},
		{
			name:  "no cgroup readable",
			self:  "",
			files: map[string]string{"other": ""},
			want:  cgroupStats{},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			write(t, root, c.files)
			self := filepath.Join(t.TempDir(), "cgroup")
			write(t, filepath.Dir(self), map[string]string{"cgroup": c.self})
			got := newCgroupFS(root, self).read()
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestMeterCoresAndHistory(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"cgroup.controllers": "cpu", "cpu.stat": "usage_usec 0\n"})
	self := filepath.Join(t.TempDir(), "cgroup")
	write(t, filepath.Dir(self), map[string]string{"cgroup": "0::/\n"})
	m := &Meter{cgroup: newCgroupFS(root, self), every: 0}
	start := mustTime(t, "2026-01-01T00:00:00Z")
	m.sample(start)
	write(t, root, map[string]string{"cpu.stat": "usage_usec 1500000\n"})
	m.sample(start.Add(2 * time.Second))
	if got := m.latest().CPUCores; got != 0.75 {
		t.Fatalf("cores: got %v, want 0.75 (1.5 s of CPU in 2 s)", got)
	}
	m.sample(start.Add(usageHistory + time.Second))
	if n := len(m.since(usageHistory*2, start.Add(usageHistory+time.Second))); n != 2 {
		t.Fatalf("history kept %d samples, want 2 (the first is older than %v)", n, usageHistory)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
