package dev.inferd.server.openai;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A {@code multipart/form-data} body (RFC 7578), split into its parts. Arrays arrive as repeated
 * {@code name[]} parts (the SDKs' encoding); {@link #texts} reads both {@code name[]} and {@code name}.
 * A malformed body is a 400.
 */
public record MultipartForm(List<Part> parts) {

    /** One part: its field name, its file name (null for a plain field), its content type (may be null) and bytes. */
    public record Part(String name, String fileName, String contentType, byte[] content) {
        public String text() {
            return new String(content, StandardCharsets.UTF_8);
        }
    }

    /** The boundary parameter of a {@code multipart/form-data} content type, or a 400. */
    public static String boundary(String contentType) {
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
            throw ApiError.invalid(null, "The request body must be multipart/form-data, but the Content-Type is "
                    + (contentType == null ? "missing" : "'" + contentType + "'") + ".");
        }
        for (String param : contentType.split(";")) {
            String p = param.strip();
            if (p.toLowerCase(Locale.ROOT).startsWith("boundary=")) {
                String b = p.substring("boundary=".length());
                if (b.length() >= 2 && b.startsWith("\"") && b.endsWith("\"")) b = b.substring(1, b.length() - 1);
                if (!b.isEmpty() && b.length() <= 200) return b;
            }
        }
        throw ApiError.invalid(null, "The multipart/form-data Content-Type has no boundary.");
    }

    public static MultipartForm parse(byte[] body, String boundary) {
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        int at = indexOf(body, delimiter, 0);
        if (at < 0) throw malformed("no part starts with the boundary");
        var parts = new ArrayList<Part>();
        while (true) {
            int after = at + delimiter.length;
            if (after + 2 <= body.length && body[after] == '-' && body[after + 1] == '-') break; // closing delimiter
            int headersStart = skipLineEnd(body, after);
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), headersStart);
            if (headersEnd < 0) throw malformed("a part's headers do not end");
            byte[] next = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
            int contentStart = headersEnd + 4;
            int contentEnd = indexOf(body, next, contentStart);
            if (contentEnd < 0) throw malformed("the body ends inside a part (no closing boundary)");
            parts.add(part(new String(body, headersStart, headersEnd - headersStart, StandardCharsets.UTF_8),
                    java.util.Arrays.copyOfRange(body, contentStart, contentEnd)));
            at = contentEnd + 2;
        }
        return new MultipartForm(List.copyOf(parts));
    }

    /**
     * A body's start, read until one text field was whole in it.
     *
     * @param value the field's value, or null when the body ended (or grew past the limit) without it
     * @param bytes everything read from the body so far
     */
    public record Head(String value, byte[] bytes) {
    }

    /**
     * Reads {@code in} until the part named {@code name} is whole, so that a proxy can route on a field before the rest
     * (the file) is read, and at most {@code limit + 1} bytes. A malformed start also ends the search: the caller
     * parses what was read ({@link #parse}) for the error.
     */
    public static Head readUntil(InputStream in, String boundary, String name, long limit) throws IOException {
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        byte[] next = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        byte[] headersEnd = "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        byte[] buf = new byte[16 * 1024];
        int len = 0;
        int at = -1; // where the current part's delimiter starts
        int searched = 0; // how far the search for the current step got, so that each byte is looked at about once
        while (true) {
            if (at < 0) {
                at = indexOf(buf, delimiter, searched, len);
                if (at < 0) searched = Math.max(0, len - delimiter.length + 1);
            }
            while (at >= 0) {
                int after = at + delimiter.length;
                if (after + 2 > len) break;
                if (buf[after] == '-' && buf[after + 1] == '-') return new Head(null, Arrays.copyOf(buf, len));
                if (buf[after] != '\r' || buf[after + 1] != '\n') return new Head(null, Arrays.copyOf(buf, len));
                int headersStart = after + 2;
                int end = indexOf(buf, headersEnd, headersStart, len);
                if (end < 0) break;
                int contentStart = end + 4;
                int contentEnd = indexOf(buf, next, Math.max(contentStart, searched), len);
                if (contentEnd < 0) {
                    searched = Math.max(contentStart, len - next.length + 1);
                    break;
                }
                Part part;
                try {
                    part = part(new String(buf, headersStart, end - headersStart, StandardCharsets.UTF_8),
                            Arrays.copyOfRange(buf, contentStart, contentEnd));
                } catch (ApiError e) {
                    return new Head(null, Arrays.copyOf(buf, len));
                }
                if (part.name().equals(name)) return new Head(part.text(), Arrays.copyOf(buf, len));
                at = contentEnd + 2;
                searched = at;
            }
            if (len > limit) return new Head(null, Arrays.copyOf(buf, len));
            if (len == buf.length) buf = Arrays.copyOf(buf, (int) Math.min(Math.max(buf.length * 2L, 1), limit + 1 + 16 * 1024));
            int n = in.read(buf, len, buf.length - len);
            if (n < 0) return new Head(null, Arrays.copyOf(buf, len));
            len += n;
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from, int end) {
        outer:
        for (int i = from; i <= end - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
            return i;
        }
        return -1;
    }

    public Optional<Part> part(String name) {
        return parts.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** A plain field's value. */
    public Optional<String> text(String name) {
        return part(name).map(Part::text);
    }

    /** The values of an array field, sent as {@code name[]} or {@code name}. */
    public List<String> texts(String name) {
        return parts.stream().filter(p -> p.name().equals(name + "[]") || p.name().equals(name)).map(Part::text).toList();
    }

    private static Part part(String headers, byte[] content) {
        String name = null, fileName = null, contentType = null;
        for (String line : headers.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) continue;
            String header = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            if (header.equals("content-disposition")) {
                name = parameter(value, "name");
                fileName = parameter(value, "filename");
            } else if (header.equals("content-type")) {
                contentType = value;
            }
        }
        if (name == null) throw malformed("a part has no Content-Disposition name");
        return new Part(name, fileName, contentType, content);
    }

    /** {@code key="value"} (or unquoted) from a Content-Disposition value. */
    private static String parameter(String disposition, String key) {
        for (String piece : disposition.split(";")) {
            String p = piece.strip();
            int eq = p.indexOf('=');
            if (eq < 0 || !p.substring(0, eq).strip().equalsIgnoreCase(key)) continue;
            String v = p.substring(eq + 1).strip();
            if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) v = v.substring(1, v.length() - 1);
            return v;
        }
        return null;
    }

    private static int skipLineEnd(byte[] b, int i) {
        if (i + 1 < b.length && b[i] == '\r' && b[i + 1] == '\n') return i + 2;
        throw malformed("a boundary is not followed by a line end");
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
            return i;
        }
        return -1;
    }

    private static ApiError malformed(String why) {
        return ApiError.invalid(null, "The multipart/form-data body is malformed: " + why + ".");
    }
}
