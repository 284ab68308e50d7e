// A cgo program built with CC=gozyme-cc by the end-to-end tests
// (tests/e2e/cgo_test.go): SQLite's amalgamation goes through gozyme's
// compile path. Its own module, so `go test ./...` in gozyme skips it.
module github.com/gozyme/gozyme/tests/cgo-sqlite

go 1.22

require github.com/mattn/go-sqlite3 v1.14.22
