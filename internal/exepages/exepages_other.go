//go:build !linux

package exepages

func trim() error { return nil }
