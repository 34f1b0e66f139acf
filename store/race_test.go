//go:build race

package store

func init() { raceBuild = true }
