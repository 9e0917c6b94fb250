package dev.inferd.server.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.batch.SchedulerStats;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.http.InferdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sixteen clients stream at once from the real engine over HTTP; half hang up midway. Their
 * sequences must stop and give back their KV blocks, and the other half must get exactly what they
 * get when alone.
 */
class ManyClientsEndToEndTest {
    private static final String MODEL = "stories";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static LocalTextGenerator generator;
    private static InferdServer server;

    @BeforeAll
    static void start() throws IOException {
        generator = LocalTextGenerator.open(Fixtures.storiesModel(),
                new LocalTextGenerator.Options(MODEL, null, 0).withParallel(16));
        server = InferdServer.start("127.0.0.1", 0, Map.<String, TextGenerator>of(MODEL, generator));
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (generator != null) generator.close();
    }

    private static String request(String prompt, int maxTokens) {
        return """
                {"model":"%s","prompt":"%s","max_tokens":%d,"temperature":0,"stream":true}""".formatted(MODEL, prompt, maxTokens);
    }

    /** Streams one completion over a raw socket; stops reading (and closes) after {@code hangUpAfter} events if >= 0. */
    private static String stream(String body, int hangUpAfter) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            var in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            StringBuilder text = new StringBuilder();
            int events = 0;
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith("data: ")) continue;
                String data = line.substring(6);
                if (data.equals("[DONE]")) break;
                JsonNode chunk = JSON.readTree(data);
                for (JsonNode choice : chunk.get("choices")) text.append(choice.get("text").asText());
                if (++events == hangUpAfter) return null; // closing the socket is the hang-up
            }
            return text.toString();
        }
    }

    @Test
    void droppedStreamsFreeTheirBlocksAndTheOthersAreUnaffected() throws Exception {
        String[] prompts = {"Once upon a time", "Lily and Tom were", "The cat sat on the", "One day, a little bird",
                "Sam had a big red", "Mom said", "The dog ran", "A little boy"};
        List<String> solo = new ArrayList<>();
        for (String p : prompts) solo.add(stream(request(p, 40), -1));

        long generatedBefore = generator.stats().tokensGenerated();
        List<Future<String>> kept = new ArrayList<>();
        List<Future<String>> dropped = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < prompts.length; i++) {
                String p = prompts[i];
                Callable<String> dropper = () -> stream(request(p, 1500), 5);
                dropped.add(clients.submit(dropper));
                kept.add(clients.submit(() -> stream(request(p, 40), -1)));
            }
            for (int i = 0; i < prompts.length; i++) {
                assertThat(kept.get(i).get()).as(prompts[i]).isEqualTo(solo.get(i));
                assertThat(dropped.get(i).get()).isNull();
            }
        }

        SchedulerStats stats = awaitIdle();
        assertThat(stats.activeSequences()).isZero();
        assertThat(stats.kvBlocksUsed()).isZero();
        // Had the dropped streams run on, they alone would have generated thousands of tokens.
        long generated = stats.tokensGenerated() - generatedBefore;
        assertThat(generated).isLessThan(prompts.length * 40 + prompts.length * 200L);
    }

    private static SchedulerStats awaitIdle() throws InterruptedException {
        SchedulerStats stats = generator.stats();
        for (int i = 0; i < 100 && (stats.activeSequences() > 0 || stats.kvBlocksUsed() > 0); i++) {
            Thread.sleep(50);
            stats = generator.stats();
        }
        return stats;
    }
}
