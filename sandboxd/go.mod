module github.com/svc-dev/svc/sandboxd

go 1.26
