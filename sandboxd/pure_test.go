package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestResolveInside(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "workspace")
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755))
	must(t, os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(root, "out")))
	must(t, os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "in")))
	cases := []struct {
		name, path string
		want       string // "" when refused
	}{
		{"a file in the root", root + "/a.txt", root + "/a.txt"},
		{"a new folder", root + "/x/y/z.txt", root + "/x/y/z.txt"},
		{"dots that stay inside", root + "/sub/../b.txt", root + "/b.txt"},
		{"a link that stays inside", root + "/in/c.txt", root + "/in/c.txt"},
		{"climbing out with ..", root + "/../escaped.txt", ""},
		{"the root itself", root, ""},
		{"a sibling with the root as prefix", root + "-other/x", ""},
		{"an absolute path outside", dir + "/outside.txt", ""},
		{"a relative path", "relative.txt", ""},
		{"a NUL", root + "/a\x00b", ""},
		{"a link that escapes", root + "/out/escaped.txt", ""},
		{"a link that escapes, deeper", root + "/out/new/deeper.txt", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := openTest(t, root)
			rel, err := resolveInside(b, c.path)
			got := filepath.Join(root, rel)
			if c.want == "" {
				var refused *pathRefused
				if !errors.As(err, &refused) {
					t.Fatalf("resolveInside(%q) = %q, %v; want a refusal", c.path, got, err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("resolveInside(%q) = %q, %v; want %q", c.path, got, err, c.want)
			}
		})
	}
}

func TestCompleteUTF8(t *testing.T) {
	euro := []byte("€")  // 3 bytes
	smile := []byte("😀") // 4 bytes
	cases := []struct {
		name           string
		in             []byte
		complete, rest string
	}{
		{"ascii", []byte("abc"), "abc", ""},
		{"empty", nil, "", ""},
		{"whole characters", []byte("é€😀"), "é€😀", ""},
		{"1 of 3 bytes", append([]byte("a"), euro[:1]...), "a", string(euro[:1])},
		{"2 of 3 bytes", append([]byte("a"), euro[:2]...), "a", string(euro[:2])},
		{"3 of 4 bytes", append([]byte("a"), smile[:3]...), "a", string(smile[:3])},
		{"a lone continuation byte is not held", []byte{'a', 0x80}, "a\x80", ""},
		{"an invalid lead byte is not held", []byte{'a', 0xFF}, "a\xff", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			complete, rest := completeUTF8(c.in)
			if string(complete) != c.complete || string(rest) != c.rest {
				t.Fatalf("completeUTF8(%q) = %q, %q; want %q, %q", c.in, complete, rest, c.complete, c.rest)
			}
		})
	}
	// Every split of a mixed text, fed in two reads, gives the text back with no piece
	// holding half a character.
	text := []byte("aé€😀z")
	for i := 0; i <= len(text); i++ {
		first, rest := completeUTF8(text[:i])
		second, tail := completeUTF8(append(append([]byte(nil), rest...), text[i:]...))
		if !utf8.Valid(first) || !utf8.Valid(second) || len(tail) != 0 || string(first)+string(second) != string(text) {
			t.Fatalf("split at %d: %q + %q (+%q)", i, first, second, tail)
		}
	}
}

// Cutting a long read into events: each cut lands on a character boundary, as close to the
// limit as that allows.
func TestEventEnd(t *testing.T) {
	text := []byte("ab€😀é")
	cases := []struct{ max, want int }{
		{100, len(text)}, // all of it fits
		{2, 2},
		{3, 2}, // 1 of €'s 3 bytes
		{4, 2},
		{5, 5},
		{8, 5}, // 3 of 😀's 4 bytes
		{9, 9},
	}
	for _, c := range cases {
		if got := eventEnd(text, c.max); got != c.want {
			t.Errorf("eventEnd(%q, %d) = %d; want %d", text, c.max, got, c.want)
		}
	}
	if got := eventEnd([]byte("😀"), 2); got != 0 {
		t.Errorf("a cut inside the first character: %d; want 0", got)
	}
}

func TestAppendJSONString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", `"plain"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"line\n\ttab\r", `"line\n\ttab\r"`},
		{"\x00\x1f", `"\u0000\u001f"`},
		{"<&>", `"<&>"`},
		{"é€😀", `"é€😀"`},
		{"bad\xffbyte", "\"bad\ufffdbyte\""},
	}
	for _, c := range cases {
		if got := string(appendJSONString(nil, []byte(c.in))); got != c.want {
			t.Errorf("appendJSONString(%q) = %s; want %s", c.in, got, c.want)
		}
	}
}

func TestTheCap(t *testing.T) {
	spec := func(id, kind string) runSpec { return runSpec{RunID: id, Kind: kind, Argv: []string{"true"}} }
	g := newRegistry(time.Second, 2, nil, nil)
	steps := []struct {
		spec                runSpec
		wantLimit, wantSeen int // 0: admitted
		conflict            bool
	}{
		{spec: spec("a", kindInvoke)},
		{spec: spec("a", kindInvoke), conflict: true},
		{spec: spec("b", kindInvoke)},
		{spec: spec("c", kindInvoke), wantLimit: 2, wantSeen: 2},
		{spec: spec("d", kindExec)},    // exec has a cap of its own
		{spec: spec("e", kindInstall)}, // nor install
	}
	for i, s := range steps {
		_, err := g.admit(s.spec)
		var capped *capExceeded
		var conflict *runConflict
		switch {
		case s.conflict:
			if !errors.As(err, &conflict) {
				t.Fatalf("step %d: %v; want a conflict", i, err)
			}
		case s.wantLimit > 0:
			if !errors.As(err, &capped) || capped.limit != s.wantLimit || capped.inflight != s.wantSeen {
				t.Fatalf("step %d: %v; want capExceeded{%d, %d}", i, err, s.wantLimit, s.wantSeen)
			}
			want := "this sandbox runs at most 2 concurrent invokes and 2 are in flight; retry after 5 seconds"
			if capped.Error() != want {
				t.Fatalf("message %q; want %q", capped.Error(), want)
			}
		case err != nil:
			t.Fatalf("step %d: %v; want admitted", i, err)
		}
	}
	g.setCap(kindInvoke, 3)
	if _, err := g.admit(spec("c", kindInvoke)); err != nil {
		t.Fatalf("after raising the cap: %v", err)
	}
}

func TestParseConfig(t *testing.T) {
	env := map[string]string{"SANDBOXD_TOKEN": "t", "SANDBOXD_GRACE_SECONDS": "0.5"}
	c, err := parseConfig([]string{"--listen", "unix:/s", "--", "sh", "-c", "x"}, func(k string) string { return env[k] })
	if err != nil || c.listen != "unix:/s" || c.token != "t" || c.grace != 500*time.Millisecond ||
		c.maxConcurrentInvokes != 1 || strings.Join(c.command, " ") != "sh -c x" {
		t.Fatalf("parseConfig = %+v, %v", c, err)
	}
	if _, err := parseConfig(nil, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "a token is required") {
		t.Fatalf("no token: %v", err)
	}
	got := runEnvironment([]string{"A=1", "SANDBOXD_TOKEN=s", "SANDBOXD_X=y", "B=2"})
	if strings.Join(got, ",") != "A=1,B=2" {
		t.Fatalf("runEnvironment = %v", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
