module github.com/svc-dev/svc/sandboxd

go 1.26.0

require (
	github.com/creack/pty v1.1.24
	golang.org/x/sys v0.49.0
)
