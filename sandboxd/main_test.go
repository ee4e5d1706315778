package main

import (
	"strings"
	"testing"
	"time"
)

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
