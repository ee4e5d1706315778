package files

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestLsMode(t *testing.T) {
	for _, c := range []struct {
		mode fs.FileMode
		want string
	}{
		{0o644, "-rw-r--r--"},
		{0o755 | fs.ModeDir, "drwxr-xr-x"},
		{0o777 | fs.ModeSymlink, "lrwxrwxrwx"},
		{0o600 | fs.ModeNamedPipe, "prw-------"},
		{0o755 | fs.ModeSocket, "srwxr-xr-x"},
		{0o620 | fs.ModeDevice | fs.ModeCharDevice, "crw--w----"},
		{0o660 | fs.ModeDevice, "brw-rw----"},
		{0, "----------"},
		{0o755 | fs.ModeSetuid, "-rwsr-xr-x"},
		{0o644 | fs.ModeSetuid, "-rwSr--r--"},
		{0o755 | fs.ModeSetgid | fs.ModeDir, "drwxr-sr-x"},
		{0o745 | fs.ModeSetgid, "-rwxr-Sr-x"},
		{0o777 | fs.ModeSticky | fs.ModeDir, "drwxrwxrwt"},
		{0o776 | fs.ModeSticky | fs.ModeDir, "drwxrwxrwT"},
		{0o777 | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky, "-rwsrwsrwt"},
		{fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky, "---S--S--T"},
	} {
		if got := lsMode(c.mode); got != c.want {
			t.Errorf("lsMode(%v) = %q, want %q", c.mode, got, c.want)
		}
	}
}

// TestLsModeOnDisk reads real entries the way a listing does (lstat), so the type and
// special bits come from the kernel, not from a constructed FileMode.
func TestLsModeOnDisk(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, perm fs.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("suid", 0o755|fs.ModeSetuid)
	mk("plain", 0o644)
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "tmp"), 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "fifo"), 0o640); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"suid":  "-rwsr-xr-x",
		"plain": "-rw-r--r--",
		"tmp":   "drwxrwxrwt",
		"link":  "lrwxrwxrwx",
		"fifo":  "prw-r-----",
	} {
		info, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := lsMode(info.Mode()); got != want {
			t.Errorf("%s: lsMode = %q, want %q", name, got, want)
		}
	}
}
