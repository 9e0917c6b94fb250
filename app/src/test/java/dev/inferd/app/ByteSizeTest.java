package dev.inferd.app;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ByteSizeTest {
    @Test
    void parsesPlainAndSuffixedSizes() {
        assertThat(ByteSize.parse("0")).isZero();
        assertThat(ByteSize.parse("1048576")).isEqualTo(1L << 20);
        assertThat(ByteSize.parse("512m")).isEqualTo(512L << 20);
        assertThat(ByteSize.parse("2G")).isEqualTo(2L << 30);
        assertThat(ByteSize.parse("1.5gb")).isEqualTo(3L << 29);
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> ByteSize.parse("lots")).hasMessageContaining("not a size");
        assertThatThrownBy(() -> ByteSize.parse("-1g")).hasMessageContaining("not a size");
    }
}
