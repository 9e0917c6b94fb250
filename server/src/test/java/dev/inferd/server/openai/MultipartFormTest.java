package dev.inferd.server.openai;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MultipartFormTest {
    private static final String BOUNDARY = "----b0undary42";

    @Test
    void splitsFieldsFilesAndArrays() {
        byte[] audio = {0, 1, 2, (byte) 0xff, '\r', '\n', '-', '-', 3};
        var body = new ByteArrayOutputStream();
        field(body, "model", "speech-large-v3");
        body.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clip.mp3\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        body.writeBytes(audio);
        body.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        field(body, "timestamp_granularities[]", "word");
        field(body, "timestamp_granularities[]", "segment");
        field(body, "prompt", "Grüße");
        body.writeBytes(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));

        var form = MultipartForm.parse(body.toByteArray(), MultipartForm.boundary("multipart/form-data; boundary=" + BOUNDARY));
        assertThat(form.text("model")).contains("speech-large-v3");
        var file = form.part("file").orElseThrow();
        assertThat(file.fileName()).isEqualTo("clip.mp3");
        assertThat(file.contentType()).isEqualTo("application/octet-stream");
        assertThat(file.content()).isEqualTo(audio);
        assertThat(form.texts("timestamp_granularities")).containsExactly("word", "segment");
        assertThat(form.text("prompt")).contains("Grüße");
        assertThat(form.text("language")).isEmpty();
    }

    /** Gives a body a few bytes at a time, as a slow upload arrives. */
    private static java.io.InputStream trickling(byte[] body) {
        return new java.io.ByteArrayInputStream(body) {
            private int step;

            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1 + step++ % 7));
            }
        };
    }

    private static byte[] fileBetween(String before, String after, byte[] file) {
        var body = new ByteArrayOutputStream();
        if (before != null) field(body, "model", before);
        body.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        body.writeBytes(file);
        body.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        if (after != null) field(body, "model", after);
        body.writeBytes(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return body.toByteArray();
    }

    @Test
    void aFieldBeforeTheFileIsFoundWithoutReadingTheFile() throws Exception {
        byte[] file = new byte[200_000];
        byte[] body = fileBetween("speech-micro", null, file);
        var head = MultipartForm.readUntil(trickling(body), BOUNDARY, "model", 1 << 20);
        assertThat(head.value()).isEqualTo("speech-micro");
        assertThat(head.bytes().length).isLessThan(1000);
        assertThat(body).startsWith(head.bytes());
    }

    @Test
    void aFieldAfterTheFileIsFoundPastBytesThatLookLikeABoundary() throws Exception {
        byte[] file = ("\r\n--" + BOUNDARY.substring(0, 5) + "\r\n-- \r\n").repeat(3000).getBytes(StandardCharsets.UTF_8);
        byte[] body = fileBetween(null, "speech-micro", file);
        var head = MultipartForm.readUntil(trickling(body), BOUNDARY, "model", 1 << 20);
        assertThat(head.value()).isEqualTo("speech-micro");
        assertThat(body).startsWith(head.bytes());
    }

    @Test
    void aBodyWithoutTheFieldIsReadWholeAndOneTooLargeStopsPastTheLimit() throws Exception {
        byte[] body = fileBetween(null, null, new byte[5000]);
        var head = MultipartForm.readUntil(trickling(body), BOUNDARY, "model", 1 << 20);
        assertThat(head.value()).isNull();
        assertThat(head.bytes()).isEqualTo(body);

        var tooLarge = MultipartForm.readUntil(new java.io.ByteArrayInputStream(body), BOUNDARY, "model", 1000);
        assertThat(tooLarge.value()).isNull();
        assertThat(tooLarge.bytes().length).isGreaterThan(1000);
    }

    @Test
    void quotedBoundariesAreRead() {
        assertThat(MultipartForm.boundary("multipart/form-data; charset=utf-8; boundary=\"abc def\"")).isEqualTo("abc def");
    }

    @Test
    void otherContentTypesAndBrokenBodiesAre400() {
        assertThatThrownBy(() -> MultipartForm.boundary("application/json"))
                .isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.status()).isEqualTo(400))
                .hasMessageContaining("multipart/form-data");
        assertThatThrownBy(() -> MultipartForm.boundary("multipart/form-data")).hasMessageContaining("no boundary");
        byte[] cut = ("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> MultipartForm.parse(cut, BOUNDARY))
                .isInstanceOfSatisfying(ApiError.class, e -> assertThat(e.status()).isEqualTo(400))
                .hasMessageContaining("closing boundary");
        assertThatThrownBy(() -> MultipartForm.parse("hello".getBytes(StandardCharsets.UTF_8), BOUNDARY)).hasMessageContaining("malformed");
    }

    private static void field(ByteArrayOutputStream body, String name, String value) {
        body.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n\r\n" + value + "\r\n").getBytes(StandardCharsets.UTF_8));
    }
}
