//go:build !unix

package main

// keepSysmonAwake does nothing where the gateway cannot re-execute itself.
func keepSysmonAwake() {}
