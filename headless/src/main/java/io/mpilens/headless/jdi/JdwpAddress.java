package io.mpilens.headless.jdi;

/**
 * Where a rank's JDWP agent listens: {@code host:port}, as printed by
 * {@code -agentlib:jdwp=transport=dt_socket,server=y,address=...}.
 */
public record JdwpAddress(String host, int port) {
    public JdwpAddress {
        if (host == null || host.isEmpty()) throw new IllegalArgumentException("no host in JDWP address");
        if (port < 1 || port > 65_535) throw new IllegalArgumentException("port " + port + " is not in 1..65535");
    }

    /** Parses {@code host:port}; an IPv6 host goes in brackets: {@code [::1]:8000}. */
    public static JdwpAddress parse(String text) {
        String s = text == null ? "" : text.trim();
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("'" + s + "' is not a JDWP address of the form HOST:PORT");
        }
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + s + "' is not a JDWP address of the form HOST:PORT");
        }
        return new JdwpAddress(host, port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
