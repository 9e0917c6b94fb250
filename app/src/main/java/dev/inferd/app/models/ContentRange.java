package dev.inferd.app.models;

import java.io.IOException;
import java.util.regex.Pattern;

/**
 * A {@code Content-Range} header: {@code bytes 100-199/1000}, {@code bytes 100-199/*}, or
 * {@code bytes *}{@code /1000} (on a 416). {@code start} and {@code total} are -1 where absent.
 */
record ContentRange(long start, long end, long total) {
    private static final Pattern RANGE = Pattern.compile("bytes\\s+(\\d+)-(\\d+)/(\\d+|\\*)");
    private static final Pattern UNSATISFIED = Pattern.compile("bytes\\s+\\*/(\\d+)");

    static ContentRange parse(String header) throws IOException {
        if (header != null) {
            String h = header.strip();
            var m = RANGE.matcher(h);
            if (m.matches()) {
                long total = m.group(3).equals("*") ? -1 : Long.parseLong(m.group(3));
                return new ContentRange(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), total);
            }
            var u = UNSATISFIED.matcher(h);
            if (u.matches()) {
                return new ContentRange(-1, -1, Long.parseLong(u.group(1)));
            }
        }
        throw new IOException("malformed Content-Range header: " + header);
    }
}
