package dev.inferd.server.http;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Each way a client can leave or stall, over real sockets: the generation behind it stops, and its
 * model slot comes back (the model takes one request at a time here, so the next request would be
 * a 429 if the slot stayed held). The timeouts are short (a second) so that the tests are quick; on a loaded
 * machine they and every time the tests expect are stretched by its load per core ({@link Stalls#slowdown()},
 * at most 4 times), so that a timeout fires on the client's stall and not on the server's own wait for a core.
 * Every bound on how soon the server acts also has the time this JVM's threads were kept from running added to
 * it ({@link Stalls}): the server's timers fire late by about that much. A server that does not act at all
 * still fails every bound.
 */
class ClientFaultTest {

    private static final String LONG_CHAT = "{\"model\":\"org/tiny-model:Q8_0\","
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Go on forever\"}]}";
    private static final String LONG_STREAM = LONG_CHAT.replace("{", "{\"stream\":true,");
    private static final String SHORT_CHAT = "{\"model\":\"org/tiny-model:Q8_0\",\"max_tokens\":2,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private static final int SLOWDOWN = Stalls.slowdown();

    /** A time of the tests, stretched on a loaded machine. */
    private static long scaled(long millis) {
        return millis * SLOWDOWN;
    }

    private TestServer server = new TestServer(ServerOptions.defaults().withMaxInFlightPerModel(1)
            .withLimits(ServerOptions.Limits.defaults().withWriteTimeout(Duration.ofMillis(scaled(1000)))
                    .withReadTimeout(Duration.ofMillis(scaled(1000))).withIdleTimeout(Duration.ofMillis(scaled(2000)))));

    private final Stalls stalls = Stalls.measure();

    @AfterEach
    void stop() {
        stalls.close();
        server.close();
    }

    /** The time since it was made, and a bound on it lengthened by the stalls since then. */
    private final class Waited {
        private final long start = System.nanoTime();
        private final long stalledBefore = stalls.millis();

        long millis() {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        }

        /** {@code bound}, and as long again as the machine kept this JVM's threads from running meanwhile. */
        long allowing(long bound) {
            return bound + stalls.millis() - stalledBefore;
        }

        boolean within(long bound) {
            return millis() < allowing(bound);
        }
    }

    /** Waits for {@code latch} for {@code millis} and the stalls meanwhile; whether it opened. */
    private boolean await(java.util.concurrent.CountDownLatch latch, long millis) throws InterruptedException {
        Waited waited = new Waited();
        while (!latch.await(100, TimeUnit.MILLISECONDS)) {
            if (!waited.within(millis)) return false;
        }
        return true;
    }

    private enum Departure { FIN, RESET, HALF_CLOSE_THEN_CLOSE }

    @Test
    void aResetWhileWaitingForANonStreamedAnswerStopsTheWork() throws Exception {
        assertDepartureStopsTheWork(LONG_CHAT, Departure.RESET);
    }

    @Test
    void aResetDuringAStreamStopsTheWork() throws Exception {
        assertDepartureStopsTheWork(LONG_STREAM, Departure.RESET);
    }

    @Test
    void aFinWhileWaitingForANonStreamedAnswerStopsTheWork() throws Exception {
        assertDepartureStopsTheWork(LONG_CHAT, Departure.FIN);
    }

    @Test
    void aHalfCloseThenCloseStopsTheWork() throws Exception {
        assertDepartureStopsTheWork(LONG_CHAT, Departure.HALF_CLOSE_THEN_CLOSE);
    }

    @Test
    void aHalfCloseThenCloseOfALegacyCompletionStopsTheWork() throws Exception {
        assertDepartureStopsTheWork("{\"model\":\"org/tiny-model:Q8_0\",\"prompt\":\"Go\",\"max_tokens\":3000}",
                Departure.HALF_CLOSE_THEN_CLOSE, "/v1/completions");
    }

    private void assertDepartureStopsTheWork(String body, Departure departure) throws Exception {
        assertDepartureStopsTheWork(body, departure, "/v1/chat/completions");
    }

    private void assertDepartureStopsTheWork(String body, Departure departure, String path) throws Exception {
        assumeTrue(dev.inferd.server.linux.LinuxTcpTable.SYSTEM.isAvailable(), "needs Linux's /proc/net/tcp");
        // 3000 tokens at 10 ms each: 30 s if nothing stops it.
        server.oddModel.text("word ".repeat(3000)).delayMillis(10);
        Socket socket = new Socket("127.0.0.1", server.server.port());
        socket.getOutputStream().write(RawHttp.post(path, body.getBytes(StandardCharsets.UTF_8), ""));
        socket.getOutputStream().flush();
        if (departure == Departure.HALF_CLOSE_THEN_CLOSE) socket.shutdownOutput();
        awaitEngineStart();
        Thread.sleep(300);
        if (departure == Departure.RESET) socket.setSoLinger(true, 0);
        socket.close();
        Waited closed = new Waited();

        assertThat(await(server.oddModel.cancelSeen, 10_000)).as("engine saw isCancelled()").isTrue();
        assertThat(closed.millis()).isLessThan(closed.allowing(5000));
        assertSlotComesBack();
    }

    @Test
    @Tag("slow")
    void aClientThatStopsReadingAStreamIsCutOffAtTheWriteTimeout() throws Exception {
        // 2 KB tokens, a thousand a second: both sockets' buffers fill within seconds.
        server.oddModel.text(("x".repeat(2000) + " ").repeat(20_000)).delayMillis(1);
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(4096);
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", server.server.port()));
            socket.getOutputStream().write(RawHttp.post("/v1/chat/completions",
                    LONG_STREAM.getBytes(StandardCharsets.UTF_8), ""));
            socket.getOutputStream().flush();
            // never reads

            assertThat(await(server.oddModel.cancelSeen, 20_000)).as("engine saw isCancelled()").isTrue();
            assertSlotComesBack();
        }
    }

    /** Headers stalled mid-line: the connection is closed once the read timeout (1 s here) passes. */
    @Test
    void aClientThatStallsInItsHeadersIsDisconnectedAfterTheReadTimeout() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(WAIT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Le".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Waited waited = new Waited();
            assertEndsWithin(socket.getInputStream());
            assertThat(waited.millis()).isBetween(scaled(500), waited.allowing(scaled(4500)));
        }
    }

    /** A body stalled short of its Content-Length: answered 400 in the error shape after the read timeout. */
    @Test
    void aClientThatStallsInItsBodyGetsA400AfterTheReadTimeout() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(WAIT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"model\":")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Waited waited = new Waited();
            RawHttp.Response response = RawHttp.read(socket.getInputStream(), true);
            assertThat(waited.millis()).isBetween(scaled(500), waited.allowing(scaled(4500)));
            assertThat(response.status()).as(response.toString()).isIn(400, 408);
            assertThat(response.hasErrorShape()).isTrue();
            assertEndsWithin(socket.getInputStream());
        }
    }

    /**
     * The timeouts bound waits for the client only: a non-streamed generation longer than the read and write
     * timeouts (1 s here) is answered, and so is a stream whose events are further apart than they are.
     */
    @Test
    void aGenerationLongerThanTheTimeoutsIsServed() throws Exception {
        server.oddModel.text("a b").delayMillis(scaled(700));
        HttpResponse<String> plain = server.post("/v1/chat/completions", SHORT_CHAT);
        assertThat(plain.statusCode()).as(plain.body()).isEqualTo(200);
        assertThat(TestServer.json(plain).at("/usage/completion_tokens").asInt()).isEqualTo(2);

        server.oddModel.text("a b").delayMillis(scaled(1300));
        HttpResponse<String> streamed = server.post("/v1/chat/completions", SHORT_CHAT.replaceFirst("\\{", "{\"stream\":true,"));
        assertThat(streamed.statusCode()).isEqualTo(200);
        assertThat(streamed.body()).contains("data: [DONE]");
    }

    /** Idle connections (no request at all, or kept alive after one) are closed by the timeouts, not kept forever. */
    @Test
    void manyIdleConnectionsAreClosedByTheTimeouts() throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                Socket socket = new Socket("127.0.0.1", server.server.port());
                socket.setSoTimeout(WAIT_MILLIS);
                if (i % 2 == 0) {
                    socket.getOutputStream().write("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    assertThat(RawHttp.read(socket.getInputStream(), true).status()).isEqualTo(200);
                }
                sockets.add(socket);
            }
            Waited waited = new Waited();
            for (Socket socket : sockets) assertEndsWithin(socket.getInputStream());
            assertThat(waited.millis()).isLessThan(waited.allowing(scaled(6000)));
        } finally {
            for (Socket socket : sockets) socket.close();
        }
    }

    @Test
    @Tag("slow")
    void aClientThatTricklesOneByteASecondIsCutOff() throws Exception {
        byte[] request = RawHttp.post("/v1/chat/completions", SHORT_CHAT.getBytes(StandardCharsets.UTF_8), "");
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(200);
            OutputStream out = socket.getOutputStream();
            long start = System.nanoTime();
            boolean cut = false;
            for (int i = 0; i < request.length && TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < scaled(15_000); i++) {
                try {
                    out.write(request[i]);
                    out.flush();
                } catch (IOException e) {
                    cut = true;
                    break;
                }
                // The read timeout is 1 s (stretched): a pause of 1.5 s between bytes must end the connection.
                if (socket.getInputStream().available() > 0 || peerClosed(socket)) {
                    cut = true;
                    break;
                }
                Thread.sleep(scaled(1500));
            }
            assertThat(cut).as("the server ended the connection").isTrue();
        }
    }

    @Test
    @Tag("slow")
    void anIdleKeepAliveConnectionIsClosed() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(WAIT_MILLIS);
            socket.getOutputStream().write("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(RawHttp.read(socket.getInputStream(), true).status()).isEqualTo(200);
            Waited waited = new Waited();
            assertEndsWithin(socket.getInputStream());
            assertThat(waited.millis()).isLessThan(waited.allowing(scaled(8000)));
        }
    }

    /**
     * Many clients at once, far beyond the model's slots: every answer is a 200 or a 429, the slots come
     * back, and the heap the server keeps afterwards is what it was before (nothing held per request).
     */
    @Test
    @Tag("slow")
    void aFloodGetsOnly200sAnd429s() throws Exception {
        // The default limits: the short timeouts of the other tests would cut off clients queued on a busy machine.
        server.close();
        server = new TestServer(ServerOptions.defaults().withMaxInFlightPerModel(1));
        server.oddModel.text("a b c d e f").delayMillis(2);
        List<Callable<Integer>> clients = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            String body = i % 3 == 0 ? SHORT_CHAT.replace("{", "{\"stream\":true,") : SHORT_CHAT;
            clients.add(() -> RawHttp.exchange(server.server.port(),
                    RawHttp.post("/v1/chat/completions", body.getBytes(StandardCharsets.UTF_8), ""), false).status());
        }
        List<Integer> statuses = new ArrayList<>();
        long heapBefore = heapAfterCollection();
        for (int round = 0; round < 3; round++) {
            try (ExecutorService pool = Executors.newFixedThreadPool(24)) {
                for (Future<Integer> f : pool.invokeAll(clients, 60, TimeUnit.SECONDS)) statuses.add(f.get());
            }
        }
        assertThat(statuses).containsOnly(200, 429).contains(200);
        assertSlotComesBack();
        assertThat(heapAfterCollection() - heapBefore).as("heap kept after 360 requests, bytes")
                .isLessThan(16L << 20);
    }

    private static long heapAfterCollection() throws InterruptedException {
        var memory = java.lang.management.ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    private void awaitEngineStart() throws InterruptedException {
        Waited waited = new Waited();
        while (server.oddModel.generateCalls.get() == 0 && waited.within(10_000)) Thread.sleep(10);
        assertThat(server.oddModel.generateCalls.get()).as("the engine started").isEqualTo(1);
    }

    /** The one slot is free again: a short request is served, not refused with 429, within a few seconds. */
    private void assertSlotComesBack() throws Exception {
        server.oddModel.text("Hello there").delayMillis(0);
        Waited waited = new Waited();
        int status;
        do {
            HttpResponse<String> response = server.post("/v1/chat/completions", SHORT_CHAT);
            status = response.statusCode();
            if (status == 200) break;
            Thread.sleep(100);
        } while (waited.within(5000));
        assertThat(status).as("the slot came back").isEqualTo(200);
    }

    /**
     * How long a test waits for the server to close a connection before it gives up, past any bound the tests set
     * (which judge how soon it came).
     */
    private static final int WAIT_MILLIS = 60_000;

    /** Reads until the server closes the connection (or resets it); fails if it stays open past the socket's timeout. */
    private static void assertEndsWithin(InputStream in) throws IOException {
        assertThat(endsWithin(in)).as("the server closed the connection").isTrue();
    }

    /** True when the server closes (or resets) the connection within the socket's timeout. */
    private static boolean endsWithin(InputStream in) {
        try {
            while (in.read() != -1) {
                // a 408 or 400 may come first
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static boolean peerClosed(Socket socket) throws IOException {
        socket.setSoTimeout(1);
        try {
            return socket.getInputStream().read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        } finally {
            socket.setSoTimeout(200);
        }
    }
}
