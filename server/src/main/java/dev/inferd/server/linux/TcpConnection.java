package dev.inferd.server.linux;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * One TCP connection as seen from this server: its local and remote address and port. Addresses
 * are kept as bytes, IPv4-mapped IPv6 addresses ({@code ::ffff:a.b.c.d}) as the IPv4 address, so
 * that a dual-stack socket and the kernel's table name a connection the same way.
 */
public record TcpConnection(byte[] localAddress, int localPort, byte[] remoteAddress, int remotePort) {

    public static TcpConnection of(InetAddress local, int localPort, InetAddress remote, int remotePort) {
        return new TcpConnection(normalized(local.getAddress()), localPort, normalized(remote.getAddress()), remotePort);
    }

    static byte[] normalized(byte[] address) {
        try {
            // getByAddress turns a 16-byte IPv4-mapped address into the 4-byte one.
            return InetAddress.getByAddress(address).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + address.length + " bytes", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TcpConnection c && localPort == c.localPort && remotePort == c.remotePort
                && Arrays.equals(localAddress, c.localAddress) && Arrays.equals(remoteAddress, c.remoteAddress);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * Arrays.hashCode(localAddress) + localPort) + Arrays.hashCode(remoteAddress)) + remotePort;
    }

    @Override
    public String toString() {
        return address(localAddress) + ":" + localPort + " <- " + address(remoteAddress) + ":" + remotePort;
    }

    private static String address(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes).getHostAddress();
        } catch (UnknownHostException e) {
            return Arrays.toString(bytes);
        }
    }
}
