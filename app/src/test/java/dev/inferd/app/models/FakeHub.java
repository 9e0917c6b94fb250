package dev.inferd.app.models;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local stand-in for the Hugging Face Hub: {@code /<repo>/resolve/<revision>/<file>} on one
 * server answers 302 to a second server (another host:port, like the Hub's CDN) that serves the
 * bytes with {@code Range}/206, {@code ETag} and {@code Content-Length}. Faults can be switched on.
 */
final class FakeHub implements AutoCloseable {
    record Request(String server, String path, Map<String, String> headers) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-");

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpServer hub;
    private final HttpServer cdn;
    private final Map<String, byte[]> byResolvePath = new ConcurrentHashMap<>();
    private final Map<String, byte[]> byBlob = new ConcurrentHashMap<>();
    final List<Request> requests = new CopyOnWriteArrayList<>();

    /** The hub answers this status to every request when positive (401, 404, ...). */
    volatile int hubStatus;
    /** The hub answers 503 to this many requests first. */
    final AtomicInteger unavailableFirst = new AtomicInteger();
    /** The next CDN response closes the connection after this many body bytes (once), when >= 0. */
    volatile long dropAfterBytes = -1;
    /** The next CDN response stops sending after this many body bytes and stalls (once), when >= 0. */
    volatile long stallAfterBytes = -1;
    /** The CDN answers 200 with the whole file even to a ranged request. */
    volatile boolean ignoreRange;

    FakeHub() throws IOException {
        hub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        cdn = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        hub.setExecutor(executor);
        cdn.setExecutor(executor);
        hub.createContext("/", this::resolve);
        cdn.createContext("/", this::blob);
        hub.start();
        cdn.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + hub.getAddress().getPort());
    }

    void serve(String repo, String revision, String file, byte[] content) {
        String blob = sha256(content);
        byResolvePath.put("/" + repo + "/resolve/" + revision + "/" + file, content);
        byBlob.put("/blobs/" + blob, content);
    }

    List<Request> cdnRequests() {
        return requests.stream().filter(r -> r.server().equals("cdn")).toList();
    }

    List<Request> hubRequests() {
        return requests.stream().filter(r -> r.server().equals("hub")).toList();
    }

    private void resolve(HttpExchange ex) throws IOException {
        try (ex) {
            record(ex, "hub");
            if (hubStatus > 0) {
                respond(ex, hubStatus, "{\"error\":\"status " + hubStatus + "\"}");
                return;
            }
            if (unavailableFirst.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                respond(ex, 503, "try later");
                return;
            }
            byte[] content = byResolvePath.get(ex.getRequestURI().getRawPath());
            if (content == null) {
                respond(ex, 404, "Entry not found");
                return;
            }
            ex.getResponseHeaders().add("Location", "http://127.0.0.1:" + cdn.getAddress().getPort() + "/blobs/" + sha256(content));
            ex.getResponseHeaders().add("ETag", "\"" + sha256(content) + "\"");
            ex.sendResponseHeaders(302, -1);
        }
    }

    private void blob(HttpExchange ex) throws IOException {
        try (ex) {
            record(ex, "cdn");
            byte[] content = byBlob.get(ex.getRequestURI().getRawPath());
            if (content == null) {
                respond(ex, 404, "no such blob");
                return;
            }
            long start = 0;
            String range = ex.getRequestHeaders().getFirst("Range");
            Matcher m = range == null ? null : RANGE.matcher(range);
            boolean partial = m != null && m.matches() && !ignoreRange;
            if (partial) {
                start = Long.parseLong(m.group(1));
                if (start >= content.length) {
                    ex.getResponseHeaders().add("Content-Range", "bytes */" + content.length);
                    ex.sendResponseHeaders(416, -1);
                    return;
                }
                ex.getResponseHeaders().add("Content-Range", "bytes " + start + "-" + (content.length - 1) + "/" + content.length);
            }
            ex.getResponseHeaders().add("ETag", "\"" + sha256(content) + "\"");
            ex.getResponseHeaders().add("Accept-Ranges", "bytes");
            int length = content.length - (int) start;
            ex.sendResponseHeaders(partial ? 206 : 200, length);
            OutputStream body = ex.getResponseBody();
            long drop = dropAfterBytes;
            long stall = stallAfterBytes;
            if (drop >= 0) {
                dropAfterBytes = -1;
                body.write(content, (int) start, (int) Math.min(drop, length));
                body.flush();
                // Closing the exchange short of Content-Length drops the connection.
                return;
            }
            if (stall >= 0) {
                stallAfterBytes = -1;
                body.write(content, (int) start, (int) Math.min(stall, length));
                body.flush();
                try {
                    Thread.sleep(3_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            body.write(content, (int) start, length);
        }
    }

    private void record(HttpExchange ex, String server) {
        var headers = new ConcurrentHashMap<String, String>();
        ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v.getFirst()));
        requests.add(new Request(server, ex.getRequestURI().getRawPath(), headers));
    }

    private static void respond(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        hub.stop(0);
        cdn.stop(0);
        executor.shutdownNow();
    }
}
