package dev.inferd.app;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {
    @Test
    void durationsAreANumberAndAUnitOrBareSeconds() {
        assertThat(Durations.parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("24h")).isEqualTo(Duration.ofHours(24));
        assertThat(Durations.parse("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(Durations.parse("1.5")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.parse("30")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("0s")).isZero();
        assertThat(Durations.parse("PT1H")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void nonsenseNegativeAndOverflowAreClearErrors() {
        assertThatThrownBy(() -> Durations.parse("soon")).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Durations.parse("-1s")).hasMessageContaining("negative");
        assertThatThrownBy(() -> Durations.parse("99999999999999999999d")).hasMessageContaining("too long");
        assertThatThrownBy(() -> Durations.parse("PT99999999999999999999999H")).hasMessageContaining("not a duration");
    }

    @Test
    void formatWritesTheLargestWholeUnit() {
        assertThat(Durations.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(Durations.format(Duration.ofMinutes(10))).isEqualTo("10m");
        assertThat(Durations.format(Duration.ofHours(24))).isEqualTo("1d");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    }

    @Command(name = "probe")
    static final class Probe implements Runnable {
        @Mixin
        ServerOptionsMixin server;

        @Override
        public void run() {
        }
    }

    @Test
    void theServerMixinReadsDurationsSizesAndSecondsAlike() {
        var probe = new Probe();
        new CommandLine(probe).parseArgs("--read-timeout", "45", "--write-timeout", "2m", "--max-body", "8m",
                "--min-body-rate", "0", "--port", "0");
        var options = probe.server.serverOptions();
        assertThat(options.limits().readTimeout()).isEqualTo(Duration.ofSeconds(45));
        assertThat(options.limits().writeTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(options.limits().idleTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.limits().maxBodyBytes()).isEqualTo(8L << 20);
        assertThat(options.limits().minBodyBytesPerSecond()).isZero();
        assertThat(probe.server.port(8000)).isZero();
        assertThat(probe.server.problem()).isNull();
    }

    @Test
    void aBadValueIsAUsageErrorNamingTheOption() {
        var cmd = new CommandLine(new Probe());
        var err = new java.io.StringWriter();
        cmd.setErr(new java.io.PrintWriter(err));
        assertThat(cmd.execute("--read-timeout", "soon")).isEqualTo(2);
        assertThat(err.toString()).contains("--read-timeout").contains("not a duration");
    }
}
