package dev.inferd.app;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CloudCommandTest {
    @Test
    void loadWaitsAreDurationsWithOrWithoutAUnit() {
        assertThat(CloudCommand.parseDuration("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(CloudCommand.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(CloudCommand.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(CloudCommand.parseDuration("1.5")).isEqualTo(Duration.ofMillis(1500));
        assertThat(CloudCommand.parseDuration("0s")).isZero();
        assertThatThrownBy(() -> CloudCommand.parseDuration("soon")).hasMessageContaining("not a duration");
    }
}
