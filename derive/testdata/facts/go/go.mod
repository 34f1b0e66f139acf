module example.com/shop

go 1.22.3

require github.com/pkg/errors v0.9.1

require (
	golang.org/x/sync v0.7.0
	github.com/google/uuid v1.6.0 // indirect
)
