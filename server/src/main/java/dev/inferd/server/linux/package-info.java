/**
 * Linux-only connection watching: which TCP connections the peer has closed, read from the kernel's
 * {@code /proc/net/tcp} tables. Elsewhere {@link dev.inferd.server.linux.LinuxTcpTable#isAvailable()} is false.
 */
package dev.inferd.server.linux;
