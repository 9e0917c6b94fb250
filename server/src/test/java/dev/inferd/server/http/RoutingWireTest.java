package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Models, unknown routes, wrong methods, content types, size limits and headers. */
class RoutingWireTest {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = new TestServer();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void listsModelsInOrderWithIntegerCreated() throws Exception {
        HttpResponse<String> response = server.get("/v1/models");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-request-id")).hasValueSatisfying(
                v -> assertThat(v).matches("req_[0-9a-f]{32}"));
        assertThat(response.body()).isEqualTo("{\"object\":\"list\",\"data\":["
                + "{\"id\":\"fake-model\",\"object\":\"model\",\"created\":1700000000,\"owned_by\":\"inferd-tests\"},"
                + "{\"id\":\"org/tiny-model:Q8_0\",\"object\":\"model\",\"created\":1700000000,\"owned_by\":\"inferd-tests\"}]}");
    }

    @Test
    void retrievesAModelWhoseIdHasSlashAndColon() throws Exception {
        for (String path : new String[] {"/v1/models/org/tiny-model:Q8_0", "/v1/models/org%2Ftiny-model%3AQ8_0"}) {
            HttpResponse<String> response = server.get(path);

            assertThat(response.statusCode()).as(path).isEqualTo(200);
            assertThat(response.body()).isEqualTo(
                    "{\"id\":\"org/tiny-model:Q8_0\",\"object\":\"model\",\"created\":1700000000,\"owned_by\":\"inferd-tests\"}");
        }
    }

    @Test
    void unknownModelIs404() throws Exception {
        HttpResponse<String> response = server.get("/v1/models/gpt-5");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).isEqualTo("{\"error\":{\"message\":\"The model `gpt-5` does not exist or you do "
                + "not have access to it.\",\"type\":\"invalid_request_error\",\"param\":\"model\",\"code\":404}}");
    }

    @Test
    void unknownModelInACompletionIs404() throws Exception {
        for (String path : new String[] {"/v1/chat/completions", "/v1/completions"}) {
            HttpResponse<String> response = server.post(path,
                    "{\"model\":\"gpt-5\",\"prompt\":\"x\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(TestServer.json(response).get("error").get("message").asText()).contains("`gpt-5` does not exist");
        }
    }

    @Test
    void unknownRouteIs404WithOpenAisMessage() throws Exception {
        HttpResponse<String> response = server.post("/v1/chat/completion", "{}");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.headers().firstValue("x-request-id")).isPresent();
        JsonNode error = TestServer.json(response).get("error");
        assertThat(error.get("message").asText()).startsWith("Unknown request URL: POST /v1/chat/completion. Please check the URL");
        assertThat(error.get("code").asInt()).isEqualTo(404);
        assertThat(error.get("param").isNull()).isTrue();
        assertThat(server.get("/").statusCode()).isEqualTo(404);
        assertThat(server.get("/v1/models/").statusCode()).isEqualTo(404);
    }

    @Test
    void wrongMethodIs405WithAllow() throws Exception {
        HttpResponse<String> get = server.get("/v1/chat/completions");
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(get.headers().firstValue("allow")).hasValue("POST");
        assertThat(TestServer.json(get).get("error").get("code").asInt()).isEqualTo(405);

        HttpResponse<String> post = server.post("/v1/models", "{}");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("allow")).hasValue("GET, HEAD");

        HttpResponse<String> delete = server.http.send(HttpRequest.newBuilder(URI.create(server.base() + "/v1/completions"))
                .DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(delete.statusCode()).isEqualTo(405);
    }

    @Test
    void multipartBodyIs415() throws Exception {
        HttpResponse<String> response = server.post("/v1/chat/completions", "--x\r\n\r\n--x--", "multipart/form-data; boundary=x");

        assertThat(response.statusCode()).isEqualTo(415);
        JsonNode error = TestServer.json(response).get("error");
        assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.get("code").asInt()).isEqualTo(415);
        assertThat(error.get("message").asText()).contains("application/json");
    }

    @Test
    void jsonLabelledAsAFormIsStillReadAsJson() throws Exception {
        // What `curl -d '{...}'` sends without -H 'Content-Type: application/json'.
        HttpResponse<String> response = server.post("/v1/chat/completions",
                "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                "application/x-www-form-urlencoded");

        assertThat(response.statusCode()).isEqualTo(200);
    }

    @Test
    void bodyOverTheLimitIs413WithTheErrorBody() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100000000\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.setSoTimeout(10_000);
            InputStream in = socket.getInputStream();
            String reply = new String(in.readNBytes(200), StandardCharsets.UTF_8);
            assertThat(reply).startsWith("HTTP/1.1 413");
        }
    }

    @Test
    void aCompressedBodyIsA400ThatSaysSo() throws Exception {
        var bytes = new java.io.ByteArrayOutputStream();
        try (var gzip = new java.util.zip.GZIPOutputStream(bytes)) {
            gzip.write("{\"model\":\"fake-model\",\"prompt\":\"hi\"}".getBytes(StandardCharsets.UTF_8));
        }
        HttpResponse<String> response = server.http.send(HttpRequest.newBuilder(URI.create(server.base() + "/v1/completions"))
                .header("Content-Type", "application/json").header("Content-Encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes.toByteArray())).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode error = TestServer.json(response).get("error");
        assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.get("message").asText()).isEqualTo("Content-Encoding gzip is not supported: send the request body uncompressed.");
    }

    @Test
    void nonObjectJsonIsA400() throws Exception {
        HttpResponse<String> response = server.post("/v1/completions", "\"just a string\"");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(response).get("error").get("message").asText()).contains("must be a JSON object");
    }

    @Test
    void everyResponseGetsItsOwnRequestId() throws Exception {
        String a = server.get("/v1/models").headers().firstValue("x-request-id").orElseThrow();
        String b = server.get("/v1/models").headers().firstValue("x-request-id").orElseThrow();
        assertThat(a).isNotEqualTo(b);
    }
}
