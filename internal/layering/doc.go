// Package layering holds the test that keeps the import rules of
// docs/architecture.md ("Packages and dependency direction") true. It has
// no code of its own.
package layering
