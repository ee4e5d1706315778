package activity

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// usageHistory is how much of the past the meter keeps: the console plots the last minutes,
// and a CPU threshold for idleTimeout looks back over it.
const usageHistory = 10 * time.Minute

// workspaceEvery is how often a walked workspace is measured again (see workspaceUsed).
const workspaceEvery = 5 * time.Second

// cgroupStats is what the Pod's own cgroup says, read as counters and levels.
type cgroupStats struct {
	cpuNanos       uint64 // CPU time used, all processes of the Pod
	throttledNanos uint64 // time the CPU quota held the Pod back
	memory         uint64 // working set: usage less the inactive page cache (kubelet's figure)
	memoryLimit    uint64 // 0: none
	cpuLimit       float64
	ok             bool
}

// cgroupFS reads the cgroup sandboxd runs in, v2 (one tree) or v1 (a tree per controller).
// Inside a cgroup namespace (a container's, devnode's) /proc/self/cgroup says "/" and the
// runtime mounts the Pod's own cgroup at /sys/fs/cgroup; without one the path names it.
type cgroupFS struct {
	root  string            // /sys/fs/cgroup
	paths map[string]string // controller ("" for v2) → path from /proc/self/cgroup
}

func newCgroupFS(root, selfCgroup string) *cgroupFS {
	c := &cgroupFS{root: root, paths: map[string]string{}}
	data, _ := os.ReadFile(selfCgroup)
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctrl := range strings.Split(parts[1], ",") {
			c.paths[ctrl] = parts[2]
		}
	}
	return c
}

// dir is the folder of `ctrl`'s files ("" for v2): the path under the mount, else the mount
// itself (a runtime that mounts only the Pod's cgroup there).
func (c *cgroupFS) dir(ctrl string) string {
	base := filepath.Join(c.root, ctrl)
	if p, ok := c.paths[ctrl]; ok && p != "/" {
		if _, err := os.Stat(filepath.Join(base, p)); err == nil {
			return filepath.Join(base, p)
		}
	}
	return base
}

func (c *cgroupFS) read() cgroupStats {
	if _, err := os.Stat(filepath.Join(c.root, "cgroup.controllers")); err == nil {
		return c.readV2()
	}
	return c.readV1()
}

func (c *cgroupFS) readV2() cgroupStats {
	d := c.dir("")
	s := cgroupStats{}
	cpu := keyed(filepath.Join(d, "cpu.stat"))
	usage, ok := cpu["usage_usec"]
	s.ok = ok
	s.cpuNanos = usage * 1000
	s.throttledNanos = cpu["throttled_usec"] * 1000
	s.memory = workingSet(number(filepath.Join(d, "memory.current")), keyed(filepath.Join(d, "memory.stat"))["inactive_file"])
	s.memoryLimit = number(filepath.Join(d, "memory.max")) // "max" reads as 0: none
	if f := strings.Fields(text(filepath.Join(d, "cpu.max"))); len(f) == 2 && f[0] != "max" {
		s.cpuLimit = ratio(f[0], f[1])
	}
	return s
}

func (c *cgroupFS) readV1() cgroupStats {
	s := cgroupStats{}
	acct := filepath.Join(c.dir("cpuacct"), "cpuacct.usage")
	_, err := os.Stat(acct)
	s.ok = err == nil
	s.cpuNanos = number(acct)
	cpu := c.dir("cpu")
	s.throttledNanos = keyed(filepath.Join(cpu, "cpu.stat"))["throttled_time"]
	if q := text(filepath.Join(cpu, "cpu.cfs_quota_us")); q != "" && !strings.HasPrefix(q, "-") {
		s.cpuLimit = ratio(q, text(filepath.Join(cpu, "cpu.cfs_period_us")))
	}
	mem := c.dir("memory")
	s.memory = workingSet(number(filepath.Join(mem, "memory.usage_in_bytes")), keyed(filepath.Join(mem, "memory.stat"))["total_inactive_file"])
	// v1 says "no limit" with a number near 2^63 rounded to the page size.
	if l := number(filepath.Join(mem, "memory.limit_in_bytes")); l < 1<<62 {
		s.memoryLimit = l
	}
	return s
}

func workingSet(usage, inactive uint64) uint64 {
	if inactive > usage {
		return 0
	}
	return usage - inactive
}

func text(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

func number(path string) uint64 {
	n, _ := strconv.ParseUint(text(path), 10, 64)
	return n
}

func ratio(a, b string) float64 {
	x, _ := strconv.ParseFloat(a, 64)
	y, _ := strconv.ParseFloat(b, 64)
	if y <= 0 {
		return 0
	}
	return x / y
}

// keyed reads a "key value" per line file (cpu.stat, memory.stat).
func keyed(path string) map[string]uint64 {
	out := map[string]uint64{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 {
			if n, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				out[f[0]] = n
			}
		}
	}
	return out
}

// usageSample is one look at the Pod: the figures the API serves and the console plots.
type usageSample struct {
	At                 time.Time `json:"at"`
	CPUCores           float64   `json:"cpuCores"`
	MemoryBytes        uint64    `json:"memoryBytes"`
	throttledNanos     uint64
	cpuNanos           uint64
	memoryLimit        uint64
	cpuLimit           float64
	cgroupOK           bool
	workspaceUsedBytes uint64
}

// meter samples the Pod every `every` and keeps usageHistory of samples.
type Meter struct {
	cgroup    *cgroupFS
	workspace string
	every     time.Duration
	walked    func() uint64 // the workspace's bytes, when it is a folder of a larger file system

	mu      sync.Mutex
	samples []usageSample // oldest first
	wsAt    time.Time
	wsUsed  uint64
}

func NewMeter(workspace string, every time.Duration) *Meter {
	m := &Meter{cgroup: newCgroupFS("/sys/fs/cgroup", "/proc/self/cgroup"), workspace: workspace, every: every}
	return m
}

// run samples until stop closes.
func (m *Meter) Run(ctx context.Context) {
	t := time.NewTicker(m.every)
	defer t.Stop()
	m.sample(time.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			m.sample(now)
		}
	}
}

func (m *Meter) sample(now time.Time) {
	st := m.cgroup.read()
	s := usageSample{At: now, MemoryBytes: st.memory, throttledNanos: st.throttledNanos, cpuNanos: st.cpuNanos,
		memoryLimit: st.memoryLimit, cpuLimit: st.cpuLimit, cgroupOK: st.ok}
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.samples); n > 0 {
		prev := m.samples[n-1]
		if dt := now.Sub(prev.At).Seconds(); dt > 0 && s.cpuNanos >= prev.cpuNanos {
			s.CPUCores = float64(s.cpuNanos-prev.cpuNanos) / 1e9 / dt
		}
	}
	cut := 0
	for cut < len(m.samples) && now.Sub(m.samples[cut].At) > usageHistory {
		cut++
	}
	m.samples = append(m.samples[cut:], s)
}

// latest is the newest sample (zero before the first).
func (m *Meter) latest() usageSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.samples) == 0 {
		return usageSample{}
	}
	return m.samples[len(m.samples)-1]
}

// since is the samples newer than `d` ago, oldest first.
func (m *Meter) since(d time.Duration, now time.Time) []usageSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []usageSample{}
	for _, s := range m.samples {
		if now.Sub(s.At) <= d {
			out = append(out, s)
		}
	}
	return out
}

// workspaceUsage is the workspace's bytes used and free. Free is its file system's. Used is
// the file system's when the workspace is a file system of its own (a volume), else the
// bytes its files take (a folder of a larger file system, as devnode's PVCs and hostPath
// volumes are: the file system's figure would be everyone's). A walk is redone at most every
// workspaceEvery.
func (m *Meter) workspaceUsage(now time.Time) (used, free, total uint64) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(m.workspace, &fs); err != nil {
		return 0, 0, 0
	}
	bs := uint64(fs.Bsize)
	free, total = fs.Bavail*bs, fs.Blocks*bs
	if wholeFileSystem(m.workspace) {
		return (fs.Blocks - fs.Bfree) * bs, free, total
	}
	m.mu.Lock()
	fresh := !m.wsAt.IsZero() && now.Sub(m.wsAt) < workspaceEvery
	used = m.wsUsed
	m.mu.Unlock()
	if !fresh {
		used = walkedBytes(m.workspace)
		m.mu.Lock()
		m.wsAt, m.wsUsed = now, used
		m.mu.Unlock()
	}
	return used, free, total
}

// wholeFileSystem: `path` is a mount point whose mount is the root of its file system.
func wholeFileSystem(path string) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	clean := filepath.Clean(path)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && f[4] == clean {
			return f[3] == "/"
		}
	}
	return false
}

// walkedBytes is the space the files under `root` take (allocated blocks, hard links once).
func walkedBytes(root string) uint64 {
	var total uint64
	seen := map[[2]uint64]bool{}
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		if st.Nlink > 1 && !d.IsDir() {
			key := [2]uint64{uint64(st.Dev), st.Ino}
			if seen[key] {
				return nil
			}
			seen[key] = true
		}
		total += uint64(st.Blocks) * 512
		return nil
	})
	return total
}

// processCount is the processes of the Pod: sandboxd is PID 1 of the Pod's PID namespace,
// so /proc lists exactly them.
func processCount() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			n++
		}
	}
	return n
}
