module github.com/svc-dev/svc/sandboxd

go 1.26

require github.com/creack/pty v1.1.24
