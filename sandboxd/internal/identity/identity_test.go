package identity

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/svc-dev/svc/sandboxd/internal/proc"
)

func TestOwnerFromPasswd(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	must(t, os.Mkdir(home, 0o755))
	passwd := filepath.Join(dir, "passwd")
	must(t, os.WriteFile(passwd, []byte("root:x:0:0:root:/root:/bin/sh\nsbx:x:1000:1000::"+home+":/bin/sh\n"), 0o644))
	o := New(1000, 1000, passwd, "/workspace")
	if o.name != "sbx" || o.home != home {
		t.Fatalf("owner = %+v", o)
	}
	// No entry: the number is the name and the workspace the home.
	o = New(1234, 1234, passwd, "/workspace")
	if o.name != "1234" || o.home != "/workspace" {
		t.Fatalf("owner = %+v", o)
	}
	env := o.Environment([]string{"HOME=/root", "PATH=/bin", "USER=root"})
	if strings.Join(env, " ") != "PATH=/bin HOME=/workspace USER=1234 LOGNAME=1234" {
		t.Fatalf("env = %v", env)
	}
	var none *Owner
	if none.Credential() != nil || len(none.Environment([]string{"A=1"})) != 1 {
		t.Fatal("a nil owner changes nothing")
	}
}

// asRoot skips where the test cannot change owners (the daemon's own case needs root).
func asRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to change owners: sandboxd runs as root in its Pod")
	}
}

func ownerOf(t *testing.T, path string) (uint32, uint32) {
	t.Helper()
	var st unix.Stat_t
	must(t, unix.Lstat(path, &st))
	return st.Uid, st.Gid
}

func TestAdoptWorkspaceOnce(t *testing.T) {
	asRoot(t)
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "a/b"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "a/b/f"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(root, "theirs"), nil, 0o644))
	must(t, os.Chown(filepath.Join(root, "theirs"), 2000, 2000))
	outside := filepath.Join(t.TempDir(), "outside")
	must(t, os.WriteFile(outside, nil, 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "link")))
	own := &Owner{uid: 1000, gid: 1000}
	must(t, AdoptWorkspace(root, own))
	for _, p := range []string{"", "a", "a/b", "a/b/f", "link"} {
		if uid, _ := ownerOf(t, filepath.Join(root, p)); uid != 1000 {
			t.Errorf("%q belongs to %d", p, uid)
		}
	}
	if uid, _ := ownerOf(t, filepath.Join(root, "theirs")); uid != 2000 {
		t.Error("a file of another user changed hands")
	}
	if uid, _ := ownerOf(t, outside); uid != 0 {
		t.Error("the link was followed")
	}
	// Adopted already: a root file made since stays root's (the walk is not repeated).
	must(t, os.WriteFile(filepath.Join(root, "later"), nil, 0o644))
	must(t, AdoptWorkspace(root, own))
	if uid, _ := ownerOf(t, filepath.Join(root, "later")); uid != 0 {
		t.Error("the walk ran again")
	}
}

func TestChildrenRunAsTheOwner(t *testing.T) {
	asRoot(t)
	cred := (&Owner{uid: 1000, gid: 1000}).Credential()
	r, w, err := os.Pipe()
	must(t, err)
	sh, err := exec.LookPath("sh")
	must(t, err)
	pid, err := proc.Spawn(sh, []string{"sh", "-c", `echo "$(id -u):$(id -g):$(id -G)"; grep CapEff /proc/self/status; echo reopened > /proc/self/fd/1`}, "/", nil, []*os.File{nil, w, w}, cred)
	must(t, err)
	w.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(r)
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, 0, nil)
	if got := out.String(); got != "1000:1000:1000\nCapEff:\t0000000000000000\nreopened\n" {
		t.Fatalf("child says %q", got)
	}
}

func TestDropInheritable(t *testing.T) {
	must(t, DropInheritable())
	status, err := os.ReadFile("/proc/self/status")
	must(t, err)
	if !strings.Contains(string(status), "CapInh:\t0000000000000000\n") {
		t.Fatalf("status: %s", status)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
