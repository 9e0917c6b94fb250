package dev.inferd.server.cloud;

import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The gateway's refusals before the body is read (401 here) leave the connection usable, or say it will close. */
class EarlyRefusalTest {

    private static Database db;
    private static CloudDeployment cloud;

    @BeforeAll
    static void start() {
        db = TestDatabases.open(TestDatabases.SQLITE);
        var registry = new ModelRegistry();
        registry.ready("chat-model", new EchoModel("chat-model"));
        cloud = CloudDeployment.start("127.0.0.1", 0, db, CloudConfig.empty(), registry, new MutableClock());
    }

    @AfterAll
    static void stop() {
        cloud.close();
        db.close();
    }

    @Test
    void aRefusedPostWithASmallBodyKeepsTheConnectionForTheNextRequest() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", cloud.port())) {
            socket.setSoTimeout(10_000);
            for (int i = 0; i < 2; i++) {
                send(socket, 30_000);
                String head = readHead(socket.getInputStream());
                assertThat(head).startsWith("HTTP/1.1 401").doesNotContainIgnoringCase("connection: close");
            }
        }
    }

    @Test
    void aRefusedPostWithALargeBodySentWholeGetsItsAnswerAndConnectionClose() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", cloud.port())) {
            socket.setSoTimeout(30_000);
            send(socket, 5_000_000);
            String head = readHead(socket.getInputStream());
            assertThat(head).startsWith("HTTP/1.1 401").containsIgnoringCase("connection: close");
        }
    }

    private static void send(Socket socket, int size) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer sk-wrong\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + size + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(new byte[size]);
        out.flush();
    }

    /** The status line and headers of one response, and its body (by Content-Length) read past. */
    private static String readHead(InputStream in) throws IOException {
        var head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) break;
            head.write(b);
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                in.readNBytes(Integer.parseInt(line.substring(15).strip()));
            }
        }
        return text;
    }
}
