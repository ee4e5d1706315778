package routes

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/sandboxd/internal/activity"
	"github.com/svc-dev/svc/sandboxd/internal/archive"
	"github.com/svc-dev/svc/sandboxd/internal/auth"
	"github.com/svc-dev/svc/sandboxd/internal/files"
	"github.com/svc-dev/svc/sandboxd/internal/logs"
	"github.com/svc-dev/svc/sandboxd/internal/proc"
	"github.com/svc-dev/svc/sandboxd/internal/runs"
	"github.com/svc-dev/svc/sandboxd/internal/terminal"
)

// The answer of every route, method and odd path sandboxd's HTTP surface knows, as bytes on
// the wire: status, the headers a client reads, and the body (volatile values masked). The
// golden file was written by the switch-and-regexp router this replaced; routing by
// ServeMux patterns must answer every one of these requests the same.
//
//	go test -run TestRoutesGolden -update   rewrites testdata/routes.golden

var updateGolden = flag.Bool("update", false, "rewrite testdata/routes.golden")

const goldenToken = "golden-token-0123456789"

type goldenRequest struct {
	method, target string
	headers        []string // "Name: value"
	body           string
	noAuth         bool
}

func goldenRequests(echoPort int) []goldenRequest {
	auth := func(m, t string, h ...string) goldenRequest { return goldenRequest{method: m, target: t, headers: h} }
	body := func(m, t, b string, h ...string) goldenRequest {
		return goldenRequest{method: m, target: t, headers: h, body: b}
	}
	anon := func(m, t string, h ...string) goldenRequest {
		return goldenRequest{method: m, target: t, headers: h, noAuth: true}
	}
	up := func(v string) string { return "Upgrade: " + v }
	run := `{"runId":"g1","kind":"exec","argv":["true"]}` + "\n"
	reqs := []goldenRequest{
		anon("GET", "/healthz"), anon("HEAD", "/healthz"), anon("POST", "/healthz"), anon("GET", "/healthz?x=1"),
		auth("GET", "/healthz"), auth("HEAD", "/healthz"), auth("POST", "/healthz"), auth("GET", "/healthz?x=1"),
		anon("GET", "/runs"), anon("GET", "/nowhere"), anon("GET", "/usage"), anon("GET", "/activity"),
		auth("GET", "/runs"), auth("HEAD", "/runs"), auth("GET", "/runs?all=true"), auth("GET", "/runs?all=false"),
		auth("GET", "/runs?"), auth("GET", "/runs/"), auth("GET", "//runs"), auth("GET", "/run%73"),
		auth("GET", "/runs/../runs"), auth("GET", "/./runs"), auth("GET", "http://h/runs"), auth("DELETE", "/runs"),
		body("POST", "/runs", "not json\n"), body("POST", "/runs", `{"runId":"x"}`+"\n"), body("POST", "/runs", ""),
		body("POST", "/runs?x=1", run), body("POST", "/runs", run),
		body("POST", "/runs", `{"runId":"g2","kind":"exec","argv":["true"],"detach":true}`+"\n"),
		auth("POST", "/runs/x/cancel"), auth("POST", "/runs/a%2Fb/cancel"), auth("GET", "/runs/x/cancel"),
		auth("POST", "/runs/x/cancel?y=1"), auth("POST", "/runs//cancel"), auth("POST", "/runs/x/y/cancel"),
		auth("POST", "/runs/x/cance%6c"), auth("PUT", "/runs/x/cancel"),
		auth("GET", "/runs/x/events"), auth("GET", "/runs/a%2Fb/events"), auth("GET", "/runs/x/events?y=1"),
		auth("GET", "/runs/x/events", "Last-Event-ID: abc"), auth("GET", "/runs/x/events", "Last-Event-ID: -1"),
		auth("POST", "/runs/x/events"), auth("HEAD", "/runs/x/events"), auth("GET", "/runs/x/events/"),
		auth("GET", "/runs/%zz/events"), auth("POST", "/runs/%zz/cancel"),
		body("PUT", "/files", "not json\n"), body("PUT", "/files", `{"files":[]}`+"\n"), body("PUT", "/files", ""),
		body("PUT", "/files", `{"files":[{"path":"/etc/x","size":1}]}`+"\nx"),
		body("PUT", "/files?x=1", `{"files":[]}`+"\n"), auth("GET", "/files"), auth("POST", "/files"),
		auth("GET", "/logs"), auth("GET", "/logs?follow=false"), auth("GET", "/logs?follow=maybe"),
		auth("GET", "/log%73"), auth("HEAD", "/logs"), auth("POST", "/logs"), auth("GET", "/logs/"),
		body("PUT", "/limits", "{}\n"), body("PUT", "/limits", `{"maxConcurrentInvokes":0}`+"\n"),
		body("PUT", "/limits", `{"maxConcurrentInvokes":1.5}`+"\n"), body("PUT", "/limits", `{"maxConcurrentInvokes":3}`+"\n"),
		body("PUT", "/limits?x=1", `{"maxConcurrentInvokes":3}`+"\n"), auth("GET", "/limits"),
		body("PUT", "/token", "{}\n"), body("PUT", "/token?x=1", "{}\n"), auth("GET", "/token"),
		auth("GET", "/fs"), auth("GET", "/fs?path="), auth("GET", "/fs?path=/"), auth("GET", "/fs?path=/etc"),
		auth("GET", "/fs?path=WORKSPACE"), auth("GET", "/fs?path=WORKSPACE/a.txt"), auth("HEAD", "/fs?path=WORKSPACE/a.txt"),
		auth("GET", "/fs?path=WORKSPACE/none"), auth("GET", "/fs?path=WORKSPACE/../etc"),
		auth("PATCH", "/fs?path=WORKSPACE/a.txt"), auth("OPTIONS", "/fs"), auth("GET", "/fs/"), auth("GET", "/f%73?path=WORKSPACE"),
		auth("GET", "/fs?"), body("PUT", "/fs?path=WORKSPACE/b.txt", "hello"), body("PUT", "/fs?path=WORKSPACE/b.txt&mode=9", "x"),
		body("POST", "/fs?path=WORKSPACE/c", `{"op":"mkdir"}`), body("POST", "/fs?path=WORKSPACE/c", `{"op":"nope"}`),
		body("POST", "/fs?path=WORKSPACE/c", `{"op":"move","to":"WORKSPACE/c2"}`),
		auth("DELETE", "/fs?path=WORKSPACE/c2"), auth("DELETE", "/fs?path=WORKSPACE/d"),
		auth("DELETE", "/fs?path=WORKSPACE/d&recursive=maybe"),
		auth("GET", "/archive"), auth("GET", "/archive?path=WORKSPACE&format=rar"), auth("GET", "/archive?path=WORKSPACE/a.txt"),
		auth("GET", "/archive?path=WORKSPACE/d&format=tar"), auth("POST", "/archive?path=WORKSPACE"),
		auth("HEAD", "/archive?path=WORKSPACE"), auth("GET", "/archive/"), body("PUT", "/archive?path=WORKSPACE/x", "not a tar"),
		auth("GET", "/usage?history=x"), auth("GET", "/usage?history=-1"), auth("POST", "/usage"), auth("HEAD", "/usage"),
		auth("GET", "/usage/"), auth("GET", "/activity?cpuThreshold=x"), auth("GET", "/activity"),
		auth("GET", "/activity?cpuThreshold=0.5"), auth("DELETE", "/activity"), auth("GET", "/usag%65?history=x"),
		auth("GET", "/terminal"), auth("GET", "/tunnel/80"), auth("GET", "/"), auth("GET", "/nowhere"),
		auth("GET", "/healthz", up("whatever")), anon("GET", "/healthz", up("whatever")),
		auth("GET", "/usage", up("tcp")), auth("GET", "/tunnel/0", up("tcp")), auth("GET", "/tunnel/65536", up("tcp")),
		auth("GET", "/tunnel/123456", up("tcp")), auth("GET", "/tunnel/%31", up("tcp")), auth("GET", "/tunnel/1/", up("tcp")),
		auth("GET", "/tunnel/x", up("tcp")), anon("GET", fmt.Sprintf("/tunnel/%d", echoPort), up("tcp")),
		auth("GET", fmt.Sprintf("/tunnel/%d", echoPort), up("websocket")),
		auth("GET", fmt.Sprintf("/tunnel/%d", echoPort), up("tcp")), auth("POST", fmt.Sprintf("/tunnel/%d", echoPort), up("TCP")),
		auth("GET", fmt.Sprintf("/tunnel/%d?x=1", echoPort), up("tcp")),
		auth("GET", "/terminal?cols=0", up("svc-terminal")), auth("POST", "/terminal?rows=x", up("svc-terminal")),
		auth("GET", "/termina%6c?cols=0", up("svc-terminal")), anon("GET", "/terminal?cols=0", up("svc-terminal")),
		auth("GET", "/terminal?cols=0", up("tcp")), auth("GET", "/terminal?%zz", up("svc-terminal")),
		auth("GET", "/terminal", up("svc-terminal"), "x-ticket-id: t1", "x-ticket-ttl-ms: x"),
		body("GET", "/runs", run, up("svc-run")), body("POST", "/runs?x=1", run, up("svc-run")),
		body("POST", "/runs", "bad\n", up("svc-run")), body("POST", "/runs", "bad\n", up("tcp")),
		body("POST", "/runs", `{"runId":"g3","kind":"exec","argv":["true"]}`+"\n", up("svc-run")),
	}
	return reqs
}

// goldenServer is sandboxd's whole HTTP surface as main wires it, on a workspace holding a
// file a.txt and a folder d with a file in it.
func goldenServer(t *testing.T) (http.Handler, string) {
	dir := filepath.Join(t.TempDir(), "workspace")
	must(t, os.MkdirAll(filepath.Join(dir, "d"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "d", "e.txt"), []byte("e\n"), 0o644))
	srv := wiredServer(dir)
	return srv.Watch.Wrap(srv), dir
}

// wiredServer is every part of sandboxd's HTTP surface, as main wires them, on the
// workspace dir (the golden token its only one).
func wiredServer(dir string) *Server {
	reaper := proc.NewReaper()
	registry := runs.NewRegistry(time.Second, 2, os.Environ(), reaper)
	tokens := auth.NewGate(goldenToken)
	terms := terminal.New(time.Second, os.Environ(), reaper, dir)
	watch := activity.New(activity.NewMeter(dir, time.Hour), registry, terms)
	return &Server{Authorized: tokens.Authorized, Tokens: tokens, Files: &files.Server{Workspace: dir}, Archive: &archive.Server{Workspace: dir}, Runs: &runs.Server{Runs: registry, Keepalive: time.Hour},
		Logs: &logs.Server{Ring: logs.NewRing(logs.KeptBytes), Keepalive: time.Hour}, Terminals: terms, Watch: watch}
}

var volatileJSON = regexp.MustCompile(`"(at|lastActiveAt|startedAt|endedAt|durationMs|modifiedAt|sha256|cores|throttledSeconds|workingSetBytes|limitBytes|limitCores|usedBytes|freeBytes|totalBytes|processes|cgroup|invokeId)":("[^"]*"|[0-9.e+-]+|true|false|null)`)

// exchange sends one request as bytes and describes the answer.
func exchange(t *testing.T, addr, workspace string, g goldenRequest) string {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	target := strings.ReplaceAll(g.target, "WORKSPACE", workspace)
	body := strings.ReplaceAll(g.body, "WORKSPACE", workspace)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: sandboxd\r\nConnection: close\r\n", g.method, target)
	if !g.noAuth {
		b.WriteString("Authorization: Bearer " + goldenToken + "\r\n")
	}
	for _, h := range g.headers {
		b.WriteString(h + "\r\n")
		if strings.HasPrefix(h, "Upgrade:") {
			b.WriteString("Connection: Upgrade\r\n")
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(g.method, "http://sandboxd/", nil)
	res, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return fmt.Sprintf("%s %s → no answer: %v", g.method, g.target, err)
	}
	defer res.Body.Close()
	out := fmt.Sprintf("%s %s", g.method, g.target)
	if len(g.headers) > 0 {
		out += " [" + strings.Join(g.headers, "; ") + "]"
	}
	if g.noAuth {
		out += " (no token)"
	}
	out += fmt.Sprintf(" → %d", res.StatusCode)
	var keys []string
	for k := range res.Header {
		if k == "Date" || k == "Etag" || k == "Last-Modified" || (k == "Content-Length" && res.StatusCode < 300) {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out += fmt.Sprintf("\n    %s: %s", k, strings.Join(res.Header[k], ", "))
	}
	if res.StatusCode == http.StatusSwitchingProtocols {
		return out
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	text := strings.ReplaceAll(string(raw), workspace, "WORKSPACE")
	if text != string(raw) {
		// The workspace's name is a temporary folder's: its length is not the same every run.
		out = regexp.MustCompile(`\n    Content-Length: \d+`).ReplaceAllString(out, "")
	}
	switch ct := res.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "text/event-stream"):
		var names []string
		for _, line := range strings.Split(text, "\n") {
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				names = append(names, name)
			}
		}
		text = "events: " + strings.Join(names, ",")
	case strings.HasPrefix(ct, "application/json"):
		text = volatileJSON.ReplaceAllString(text, `"$1":*`)
		if text != "" && !json.Valid([]byte(text)) && !strings.Contains(text, ":*") {
			text = "INVALID JSON " + text
		}
	case strings.HasPrefix(ct, "application/zip"), strings.HasPrefix(ct, "application/x-tar"), strings.HasPrefix(ct, "application/gzip"):
		text = fmt.Sprintf("(%s bytes)", map[bool]string{true: "some", false: "no"}[len(raw) > 0])
	}
	if text != "" {
		out += "\n    " + text
	}
	return out
}

func TestRoutesGolden(t *testing.T) {
	handler, workspace := goldenServer(t)
	srv := httptest.NewServer(handler)
	defer srv.Close()
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	var got []string
	for _, g := range goldenRequests(echo.Addr().(*net.TCPAddr).Port) {
		got = append(got, exchange(t, srv.Listener.Addr().String(), workspace, g))
	}
	port := fmt.Sprint(echo.Addr().(*net.TCPAddr).Port)
	text := strings.ReplaceAll(strings.Join(got, "\n")+"\n", "/tunnel/"+port, "/tunnel/PORT")
	path := filepath.Join("testdata", "routes.golden")
	if *updateGolden {
		must(t, os.MkdirAll("testdata", 0o755))
		must(t, os.WriteFile(path, []byte(text), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	must(t, err)
	if string(want) != text {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(text, "\n")
		for i := 0; i < len(wl) || i < len(gl); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Errorf("line %d:\n want %s\n  got %s", i+1, w, g)
			}
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
