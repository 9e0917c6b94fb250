package dev.inferd.engine.gguf;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the copy cache reads before it moves copies into memory: the memory the system has available. */
class LinuxMemoryTest {

    @Test
    void availableBytesComeFromMemAvailableInKilobytes() {
        var meminfo = List.of("MemTotal:       24589412 kB", "MemFree:        21691012 kB", "MemAvailable:   23012345 kB",
                "Buffers:            5596 kB");
        assertThat(LinuxMemory.availableBytes(meminfo)).isEqualTo(23012345L * 1024);
    }

    @Test
    void aSystemThatDoesNotSayGivesMinusOne() {
        assertThat(LinuxMemory.availableBytes(List.of("MemTotal:       24589412 kB", "MemFree:        21691012 kB"))).isEqualTo(-1);
        assertThat(LinuxMemory.availableBytes(List.of())).isEqualTo(-1);
    }
}
