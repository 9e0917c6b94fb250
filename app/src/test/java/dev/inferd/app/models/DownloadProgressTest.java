package dev.inferd.app.models;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class DownloadProgressTest {
    final AtomicLong nanos = new AtomicLong();
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    @Test
    void theTerminalBarIsOneLineRedrawnWithBytesPercentSpeedAndTimeLeft() {
        var bar = new TerminalProgressBar(out, nanos::get);
        bar.started("model.gguf", 100_000_000, 0);
        nanos.set(2_000_000_000L);
        bar.transferred(25_000_000);

        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text).doesNotContain("\n");
        assertThat(text.substring(text.lastIndexOf('\r') + 1))
                .isEqualTo("model.gguf [======                  ]  25% 25.0 MB / 100.0 MB  12.5 MB/s  0:06 left");

        bar.finished(100_000_000);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).endsWith(System.lineSeparator());
    }

    @Test
    void offATerminalALineEveryTenPercentOrFiveSeconds() {
        var log = new PeriodicProgressLog(out, nanos::get);
        log.started("model.gguf", 1_000_000, 0);
        for (int i = 1; i <= 100; i++) {
            nanos.addAndGet(10_000_000L);
            log.transferred(i * 5_000L); // up to 50 %
        }
        nanos.addAndGet(PeriodicProgressLog.EVERY_NANOS);
        log.transferred(510_000);
        log.finished(1_000_000);

        var lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.getFirst()).isEqualTo("downloading model.gguf (1.0 MB)");
        assertThat(lines).filteredOn(l -> l.contains("%")).hasSize(6);
        assertThat(lines.get(1)).startsWith("model.gguf: 10% (100.0 kB of 1.0 MB), 500.0 kB/s");
        assertThat(lines.get(6)).startsWith("model.gguf: 51% (510.0 kB of 1.0 MB)");
        assertThat(lines.getLast()).isEqualTo("model.gguf: done, 1.0 MB");
    }

    @Test
    void humanSizes() {
        assertThat(ByteSizes.human(-1)).isEqualTo("?");
        assertThat(ByteSizes.human(999)).isEqualTo("999 B");
        assertThat(ByteSizes.human(1_185_376)).isEqualTo("1.2 MB");
        assertThat(ByteSizes.human(807_694_464)).isEqualTo("807.7 MB");
        assertThat(ByteSizes.human(42_520_398_816L)).isEqualTo("42.5 GB");
        assertThat(ByteSizes.human(999_960)).isEqualTo("1.0 MB");
        assertThat(ByteSizes.duration(3909)).isEqualTo("1:05:09");
    }

    @Test
    void backOffDoublesUpToItsCap() {
        var retry = new RetryPolicy(6, java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(5), d -> { });
        assertThat(retry.delayAfter(1)).hasSeconds(1);
        assertThat(retry.delayAfter(2)).hasSeconds(2);
        assertThat(retry.delayAfter(3)).hasSeconds(4);
        assertThat(retry.delayAfter(4)).hasSeconds(5);
        assertThat(retry.delayAfter(40)).hasSeconds(5);
    }
}
