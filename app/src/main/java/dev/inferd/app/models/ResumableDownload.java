package dev.inferd.app.models;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Fetches one URL into a {@code .part} file that survives interruptions: it resumes with
 * {@code Range} from what is already there, follows redirects itself (so a bearer token never
 * leaves the host it was meant for), starts over when the server ignores the range, and retries
 * transient failures with bounded exponential back-off. It never renames the file; the caller
 * checks the result and does that.
 */
final class ResumableDownload {
    private static final int MAX_REDIRECTS = 10;
    private static final int BUFFER = 256 * 1024;

    private final Supplier<HttpClient> newClient;
    /** Built by the first download: building one sets up TLS, a third of a second of every start-up otherwise. */
    private HttpClient http;
    private final RetryPolicy retry;
    private final Duration responseTimeout;
    private final Duration idleTimeout;

    ResumableDownload(Supplier<HttpClient> newClient, RetryPolicy retry, Duration responseTimeout, Duration idleTimeout) {
        this.newClient = newClient;
        this.retry = retry;
        this.responseTimeout = responseTimeout;
        this.idleTimeout = idleTimeout;
    }

    static HttpClient newHttpClient(Duration connectTimeout) {
        return HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(connectTimeout)
                .build();
    }

    private synchronized HttpClient http() {
        if (http == null) http = newClient.get();
        return http;
    }

    /**
     * Brings {@code part} to the complete content of {@code url} and returns its SHA-256 in hex.
     *
     * @param expectedSize the size the file must have, or -1 when unknown
     * @throws HttpStatusException a status that is not worth retrying, or the last of the retries
     * @throws IntegrityException  the server's file is not the expected size
     * @throws IOException         the last transient failure, once the retries are used up
     */
    String fetch(URI url, Path part, Optional<String> bearerToken, long expectedSize, String name, DownloadProgress progress)
            throws IOException, InterruptedException {
        int failures = 0;
        while (true) {
            long before = sizeOrZero(part);
            try {
                return attempt(url, part, bearerToken, expectedSize, name, progress);
            } catch (IOException e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException("download of " + name + " interrupted");
                }
                if (!isTransient(e)) {
                    throw e;
                }
                // Retries are bounded per stretch without progress: a long download over a flaky
                // link keeps going as long as each try moves it forward.
                failures = sizeOrZero(part) > before ? 1 : failures + 1;
                if (failures >= retry.maxAttempts()) {
                    throw e;
                }
                Duration wait = retry.delayAfter(failures);
                progress.retrying(name + ": " + describe(e), wait);
                retry.sleeper().sleep(wait);
            }
        }
    }

    static boolean isTransient(IOException e) {
        return switch (e) {
            case HttpStatusException s -> s.isTransient();
            case IntegrityException i -> false;
            case PartFileLockedException b -> false;
            default -> !isUnknownHost(e);
        };
    }

    /** No route to the server at all: unknown host, or the connection refused or timed out. */
    static boolean isUnreachable(Throwable e) {
        return isUnknownHost(e) || hasCause(e, ConnectException.class);
    }

    private static boolean isUnknownHost(Throwable e) {
        return hasCause(e, UnknownHostException.class) || hasCause(e, UnresolvedAddressException.class);
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static String describe(IOException e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m);
    }

    private String attempt(URI url, Path part, Optional<String> bearerToken, long expectedSize, String name,
                           DownloadProgress progress) throws IOException, InterruptedException {
        try (FileChannel channel = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
             FileLock lock = lock(channel, part)) {
            long have = channel.size();
            if (expectedSize >= 0 && have > expectedSize) {
                channel.truncate(0);
                have = 0;
            }
            if (expectedSize > 0 && have == expectedSize) {
                return sha256(channel, have); // a previous run got every byte but stopped before the checks
            }
            HttpResponse<InputStream> response = send(url, bearerToken, have);
            try (InputStream body = response.body()) {
                long start;
                long total;
                switch (response.statusCode()) {
                    case 200 -> { // also the answer of a server that ignores Range: start over
                        start = 0;
                        total = response.headers().firstValueAsLong("content-length").orElse(-1);
                    }
                    case 206 -> {
                        var range = ContentRange.parse(response.headers().firstValue("content-range").orElse(null));
                        if (range.start() != have) {
                            channel.truncate(0);
                            throw new IOException("the server resumed at byte " + range.start() + " instead of " + have + "; starting over");
                        }
                        start = have;
                        total = range.total();
                    }
                    case 416 -> {
                        var range = ContentRange.parse(response.headers().firstValue("content-range").orElse(null));
                        if (have > 0 && range.total() == have) {
                            return sha256(channel, have);
                        }
                        channel.truncate(0);
                        throw new IOException("the server cannot resume at byte " + have + "; starting over");
                    }
                    default -> throw new HttpStatusException(response.statusCode(), response.uri());
                }
                if (expectedSize >= 0 && total >= 0 && total != expectedSize) {
                    throw new IntegrityException("the server's file has " + total + " bytes, the catalog says " + expectedSize);
                }
                long size = total >= 0 ? total : expectedSize;
                MessageDigest digest = newSha256();
                if (start > 0) {
                    digestPrefix(digest, channel, start);
                }
                channel.truncate(start);
                channel.position(start);
                progress.started(name, size, start);
                long written = copy(body, channel, digest, start, progress);
                channel.force(false);
                if (size >= 0 && written != size) {
                    throw new IOException("the connection closed after " + written + " of " + size + " bytes");
                }
                progress.finished(written);
                return HexFormat.of().formatHex(digest.digest());
            }
        }
    }

    private long copy(InputStream body, FileChannel channel, MessageDigest digest, long start, DownloadProgress progress)
            throws IOException {
        byte[] buffer = new byte[BUFFER];
        long written = start;
        try (var watchdog = new IdleWatchdog(idleTimeout)) {
            try {
                int n;
                while ((n = body.read(buffer)) >= 0) {
                    watchdog.progressed();
                    var bb = ByteBuffer.wrap(buffer, 0, n);
                    while (bb.hasRemaining()) {
                        channel.write(bb);
                    }
                    digest.update(buffer, 0, n);
                    written += n;
                    progress.transferred(written);
                }
            } catch (IOException e) {
                if (watchdog.fired()) {
                    throw new HttpTimeoutException("no data for " + idleTimeout.toSeconds() + " s after byte " + written);
                }
                throw e;
            }
        }
        return written;
    }

    private HttpResponse<InputStream> send(URI url, Optional<String> bearerToken, long from) throws IOException, InterruptedException {
        URI current = url;
        for (int hop = 0; ; hop++) {
            var request = HttpRequest.newBuilder(current).GET().timeout(responseTimeout).header("User-Agent", "inferd");
            if (from > 0) {
                request.header("Range", "bytes=" + from + "-");
            }
            // The Hub redirects to a CDN with a signed URL: the token is for the Hub only.
            if (bearerToken.isPresent() && sameOrigin(current, url)) {
                request.header("Authorization", "Bearer " + bearerToken.get());
            }
            HttpResponse<InputStream> response = http().send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            int status = response.statusCode();
            if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) {
                return response;
            }
            response.body().close();
            String location = response.headers().firstValue("location")
                    .orElseThrow(() -> new IOException("HTTP " + status + " without a Location header from " + response.uri()));
            if (hop >= MAX_REDIRECTS) {
                throw new HttpStatusException(status, response.uri());
            }
            try {
                current = current.resolve(location);
            } catch (IllegalArgumentException e) {
                throw new IOException("bad redirect Location '" + location + "' from " + response.uri(), e);
            }
        }
    }

    private static boolean sameOrigin(URI a, URI b) {
        return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost().equalsIgnoreCase(b.getHost()) && a.getPort() == b.getPort();
    }

    private static FileLock lock(FileChannel channel, Path part) throws IOException {
        try {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return lock;
            }
        } catch (OverlappingFileLockException e) {
            // another thread of this process holds it
        }
        throw new PartFileLockedException("another inferd process is downloading into " + part);
    }

    private static long sizeOrZero(Path p) {
        try {
            return Files.exists(p) ? Files.size(p) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * Reads through the channel that holds the lock: closing any other descriptor of the file
     * would drop this process's POSIX lock on it.
     */
    private static String sha256(FileChannel channel, long length) throws IOException {
        MessageDigest digest = newSha256();
        digestPrefix(digest, channel, length);
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void digestPrefix(MessageDigest digest, FileChannel channel, long length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
        long position = 0;
        while (position < length) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), length - position));
            int n = channel.read(buffer, position);
            if (n < 0) {
                throw new IOException("the partial download is shorter than " + length + " bytes");
            }
            buffer.flip();
            digest.update(buffer);
            position += n;
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
