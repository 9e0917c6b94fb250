package dev.inferd.server.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** A {@code multipart/form-data} upload as OpenAI's SDKs send one: the text fields, then the file. */
public final class MultipartForm {
    public static final String BOUNDARY = "inferd-test-boundary";
    /** The request's {@code Content-Type}. */
    public static final String CONTENT_TYPE = "multipart/form-data; boundary=" + BOUNDARY;

    private MultipartForm() {
    }

    /** The body: {@code fields} in their map's order, then {@code file} (none when null) as {@code filename}. */
    public static byte[] body(Map<String, String> fields, String filename, String contentType, byte[] file) {
        var body = new ByteArrayOutputStream();
        fields.forEach((name, value) -> body.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\""
                + name + "\"\r\n\r\n" + value + "\r\n").getBytes(StandardCharsets.UTF_8)));
        if (file != null) {
            body.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename
                    + "\"\r\nContent-Type: " + contentType + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            body.writeBytes(file);
            body.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        body.writeBytes(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return body.toByteArray();
    }
}
