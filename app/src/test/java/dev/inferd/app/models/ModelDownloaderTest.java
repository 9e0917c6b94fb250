package dev.inferd.app.models;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModelDownloaderTest {
    private static final String REPO = "acme/tiny-GGUF";
    private static final String REVISION = "0123456789abcdef0123456789abcdef01234567";
    private static final String FILE = "sub/tiny-Q8_0.gguf";

    @TempDir
    Path home;
    FakeHub hub;
    byte[] content;
    final List<Duration> sleeps = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        hub = new FakeHub();
        content = new byte[700_000];
        new Random(42).nextBytes(content);
        hub.serve(REPO, REVISION, FILE, content);
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    private CatalogEntry entry(String sha256, Long size) {
        return new CatalogEntry("tiny", "acme", "llama", "chat", REPO, FILE, REVISION, size, sha256, 2048, "Q8_0", "mit", null);
    }

    private CatalogEntry goodEntry() {
        return entry(FakeHub.sha256(content), (long) content.length);
    }

    private ModelsConfig config(URI endpoint, String token) {
        return new ModelsConfig(home, endpoint, Optional.ofNullable(token));
    }

    private ModelDownloader downloader(int attempts) {
        return downloader(config(hub.endpoint(), null), attempts);
    }

    private ModelDownloader downloader(ModelsConfig config, int attempts) {
        var retry = new RetryPolicy(attempts, Duration.ofMillis(1), Duration.ofMillis(4), sleeps::add);
        return new ModelDownloader(config, new ModelStore(config.modelsDir()), retry, Duration.ofMillis(300));
    }

    private ModelStore store() {
        return new ModelStore(home.resolve("models"));
    }

    @Test
    void followsTheRedirectToTheCdnAndStoresTheVerifiedFileUnderRepoRevisionAndFile() throws IOException {
        Path file = downloader(3).download(goodEntry(), DownloadProgress.NONE);

        assertThat(file).isEqualTo(home.resolve("models").resolve(REPO).resolve(REVISION).resolve(FILE));
        assertThat(Files.readAllBytes(file)).isEqualTo(content);
        assertThat(store().partFor(goodEntry())).doesNotExist();
        assertThat(store().sha256FileFor(goodEntry())).as("the catalog had the sha256 already").doesNotExist();
        assertThat(hub.hubRequests()).singleElement().extracting(FakeHub.Request::path)
                .isEqualTo("/" + REPO + "/resolve/" + REVISION + "/" + FILE);
        assertThat(hub.cdnRequests()).hasSize(1);
    }

    @Test
    void aCachedFileIsNotDownloadedAgain() {
        downloader(3).download(goodEntry(), DownloadProgress.NONE);
        hub.requests.clear();

        downloader(3).download(goodEntry(), DownloadProgress.NONE);

        assertThat(hub.requests).isEmpty();
    }

    @Test
    void anInterruptedDownloadLeavesThePartAndTheNextRunResumesItWithRange() throws IOException {
        hub.dropAfterBytes = 300_000;
        assertThatThrownBy(() -> downloader(1).download(goodEntry(), DownloadProgress.NONE))
                .isInstanceOf(ModelDownloadException.class)
                .hasMessageContaining("run the command again to resume");
        Path part = store().partFor(goodEntry());
        assertThat(part).exists();
        // The server closes after 300,000 bytes; bytes still in flight when it resets may be lost.
        long kept = Files.size(part);
        assertThat(kept).isPositive().isLessThanOrEqualTo(300_000);
        assertThat(store().fileFor(goodEntry())).doesNotExist();

        Path file = downloader(1).download(goodEntry(), DownloadProgress.NONE);

        assertThat(Files.readAllBytes(file)).isEqualTo(content);
        assertThat(FakeHub.sha256(Files.readAllBytes(file))).isEqualTo(goodEntry().sha256());
        assertThat(hub.cdnRequests()).hasSize(2);
        assertThat(hub.cdnRequests().getFirst().header("Range")).isNull();
        assertThat(hub.cdnRequests().get(1).header("Range")).isEqualTo("bytes=" + kept + "-");
        assertThat(part).doesNotExist();
    }

    @Test
    void aDroppedConnectionIsRetriedWithinOneRunFromWhereItStopped() throws IOException {
        hub.dropAfterBytes = 100_000;
        List<String> events = new ArrayList<>();

        Path file = downloader(3).download(goodEntry(), recording(events));

        assertThat(Files.readAllBytes(file)).isEqualTo(content);
        String range = hub.cdnRequests().get(1).header("Range");
        assertThat(range).matches("bytes=\\d+-");
        long resumedAt = Long.parseLong(range.substring(6, range.length() - 1));
        assertThat(resumedAt).isPositive().isLessThanOrEqualTo(100_000);
        assertThat(events).contains("started 0/700000", "started " + resumedAt + "/700000", "finished 700000");
        assertThat(events).anyMatch(e -> e.startsWith("retrying tiny-Q8_0.gguf:"));
    }

    @Test
    void aStalledConnectionTimesOutAndIsResumed() throws IOException {
        hub.stallAfterBytes = 200_000;

        Path file = downloader(3).download(goodEntry(), DownloadProgress.NONE);

        assertThat(Files.readAllBytes(file)).isEqualTo(content);
        assertThat(hub.cdnRequests().get(1).header("Range")).isEqualTo("bytes=200000-");
    }

    @Test
    void aWrongChecksumIsAnErrorAndLeavesNothingBehind() {
        var wrong = entry("00".repeat(32), (long) content.length);

        assertThatThrownBy(() -> downloader(3).download(wrong, DownloadProgress.NONE))
                .isInstanceOfSatisfying(ModelDownloadException.class,
                        e -> assertThat(e.reason()).isEqualTo(ModelDownloadException.Reason.CORRUPT))
                .hasMessageContaining("SHA-256 is " + FakeHub.sha256(content))
                .hasMessageContaining("the catalog says " + "00".repeat(32));
        assertThat(store().fileFor(wrong)).doesNotExist();
        assertThat(store().partFor(wrong)).doesNotExist();
    }

    @Test
    void aServerFileOfAnotherSizeIsRejectedBeforeDownloading() {
        var wrong = entry(null, 123L);

        assertThatThrownBy(() -> downloader(3).download(wrong, DownloadProgress.NONE))
                .isInstanceOfSatisfying(ModelDownloadException.class,
                        e -> assertThat(e.reason()).isEqualTo(ModelDownloadException.Reason.CORRUPT))
                .hasMessageContaining("700000 bytes, the catalog says 123");
        assertThat(store().fileFor(wrong)).doesNotExist();
        assertThat(store().partFor(wrong)).doesNotExist();
    }

    @Test
    void withoutACatalogChecksumTheComputedOneIsRecordedBesideTheFile() throws IOException {
        var unpinned = entry(null, null);

        Path file = downloader(3).download(unpinned, DownloadProgress.NONE);

        assertThat(Files.readAllBytes(file)).isEqualTo(content);
        assertThat(Files.readString(store().sha256FileFor(unpinned)))
                .isEqualTo(FakeHub.sha256(content) + "  tiny-Q8_0.gguf\n");
    }

    @Test
    void unauthorizedSaysTheRepoIsGatedAndHowToPassAToken() {
        hub.hubStatus = 401;

        assertThatThrownBy(() -> downloader(3).download(goodEntry(), DownloadProgress.NONE))
                .isInstanceOfSatisfying(ModelDownloadException.class,
                        e -> assertThat(e.reason()).isEqualTo(ModelDownloadException.Reason.GATED))
                .hasMessageContaining(REPO)
                .hasMessageContaining("gated or private")
                .hasMessageContaining("HF_TOKEN=<token>");
        assertThat(hub.hubRequests()).as("not retried").hasSize(1);
        assertThat(store().partFor(goodEntry())).doesNotExist();
    }

    @Test
    void theTokenGoesToTheHubButNotToTheCdnOfAnotherHost() {
        downloader(config(hub.endpoint(), "hf_secret"), 3).download(goodEntry(), DownloadProgress.NONE);

        assertThat(hub.hubRequests().getFirst().header("Authorization")).isEqualTo("Bearer hf_secret");
        assertThat(hub.cdnRequests().getFirst().header("Authorization")).isNull();
    }

    @Test
    void forbiddenWithATokenSaysTheTokenHasNoAccess() {
        hub.hubStatus = 403;

        assertThatThrownBy(() -> downloader(config(hub.endpoint(), "hf_secret"), 3).download(goodEntry(), DownloadProgress.NONE))
                .hasMessageContaining("HTTP 403")
                .hasMessageContaining("token in HF_TOKEN was sent but does not give access");
    }

    @Test
    void notFoundNamesRepoRevisionAndFile() {
        var missing = new CatalogEntry("tiny", "acme", "llama", "chat", REPO, "nope.gguf", "main", null, null, null, null, null, null);

        assertThatThrownBy(() -> downloader(3).download(missing, DownloadProgress.NONE))
                .isInstanceOfSatisfying(ModelDownloadException.class,
                        e -> assertThat(e.reason()).isEqualTo(ModelDownloadException.Reason.NOT_FOUND))
                .hasMessageContaining("file 'nope.gguf' at revision 'main' of repository '" + REPO + "'");
        assertThat(hub.hubRequests()).hasSize(1);
    }

    @Test
    void aServerThatIgnoresRangeRestartsFromZero() throws IOException {
        hub.dropAfterBytes = 250_000;
        hub.ignoreRange = true;
        assertThatThrownBy(() -> downloader(1).download(goodEntry(), DownloadProgress.NONE))
                .isInstanceOf(ModelDownloadException.class);

        Path file = downloader(1).download(goodEntry(), DownloadProgress.NONE);

        // Bytes in flight when the server dropped the connection may be lost, so the resume point varies.
        assertThat(hub.cdnRequests().get(1).header("Range")).matches("bytes=[1-9]\\d*-");
        assertThat(Files.readAllBytes(file)).isEqualTo(content);
    }

    @Test
    void aTransient503IsRetriedWithBackOff() throws IOException {
        hub.unavailableFirst.set(2);

        Path file = downloader(4).download(goodEntry(), DownloadProgress.NONE);

        assertThat(Files.readAllBytes(file)).isEqualTo(content);
        assertThat(hub.hubRequests()).hasSize(3);
        assertThat(sleeps).containsExactly(Duration.ofMillis(1), Duration.ofMillis(2));
    }

    @Test
    void retriesAreBounded() {
        hub.unavailableFirst.set(100);

        assertThatThrownBy(() -> downloader(3).download(goodEntry(), DownloadProgress.NONE))
                .isInstanceOfSatisfying(ModelDownloadException.class,
                        e -> assertThat(e.reason()).isEqualTo(ModelDownloadException.Reason.FAILED))
                .hasMessageContaining("HTTP 503");
        assertThat(hub.hubRequests()).hasSize(3);
    }

    @Test
    void noNetworkSaysWhichFileIsMissingWhereItGoesAndHowToRunOffline() throws IOException {
        int closedPort;
        try (var socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        var config = config(URI.create("http://127.0.0.1:" + closedPort), null);

        assertThatThrownBy(() -> downloader(config, 2).download(goodEntry(), DownloadProgress.NONE))
                .isInstanceOfSatisfying(ModelDownloadException.class,
                        e -> assertThat(e.reason()).isEqualTo(ModelDownloadException.Reason.NO_NETWORK))
                .hasMessageContaining("cannot reach http://127.0.0.1:" + closedPort)
                .hasMessageContaining(FILE + " is missing")
                .hasMessageContaining(store().fileFor(goodEntry()).toString())
                .hasMessageContaining("--offline")
                .hasMessageContaining("--model path/to/file.gguf");
        assertThat(store().partFor(goodEntry())).doesNotExist();
    }

    @Test
    void aCompletePartLeftBeforeTheCheckIsVerifiedWithoutDownloading() throws IOException {
        Path part = store().partFor(goodEntry());
        Files.createDirectories(part.getParent());
        Files.write(part, content);

        Path file = downloader(1).download(goodEntry(), DownloadProgress.NONE);

        assertThat(Files.readAllBytes(file)).isEqualTo(content);
        assertThat(hub.requests).isEmpty();
    }

    @Test
    void theUrlIsTheEndpointRepoResolveRevisionFile() {
        var e = new CatalogEntry("x", null, null, null, "o/r", "a b/c+d.gguf", "main", null, null, null, null, null, null);
        assertThat(HubUrls.resolve(URI.create("https://mirror.example/hf"), e))
                .hasToString("https://mirror.example/hf/o/r/resolve/main/a%20b/c%2Bd.gguf");
        assertThat(ModelsConfig.fromEnvironment(Map.of("INFERD_HF_ENDPOINT", "https://mirror.example/")::get).endpoint())
                .hasToString("https://mirror.example");
    }

    private static DownloadProgress recording(List<String> events) {
        return new DownloadProgress() {
            @Override
            public void started(String name, long totalBytes, long resumedAt) {
                events.add("started " + resumedAt + "/" + totalBytes);
            }

            @Override
            public void transferred(long bytesSoFar) {
            }

            @Override
            public void finished(long bytes) {
                events.add("finished " + bytes);
            }

            @Override
            public void retrying(String why, Duration wait) {
                events.add("retrying " + why);
            }
        };
    }
}
