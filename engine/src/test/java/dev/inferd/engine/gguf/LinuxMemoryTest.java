package dev.inferd.engine.gguf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the copy cache reads before it moves copies into memory, the memory the system has available, and the move
 * itself: a mapping of a file (private, or the JDK's read-only one) replaced by anonymous memory with its bytes, at
 * the same address.
 */
class LinuxMemoryTest {
    @TempDir
    Path dir;

    @Test
    void aPrivateMappingReplacedByHugePagesKeepsItsAddressAndBytesAndLeavesTheFile() throws IOException {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "mapping privately needs Linux's mmap");
        byte[] bytes = new byte[(5 << 20) + 12345]; // two huge pages and a part, and a part of a page
        new Random(3).nextBytes(bytes);
        Path file = Files.write(dir.resolve("copies"), bytes);
        long address = LinuxMemory.mapPrivate(file, bytes.length);
        assertThat(address).isNotZero();
        assertThat(address % (2 << 20)).as("on a huge page's boundary").isZero();
        var view = LinuxMemory.view(address, bytes.length, Arena.ofAuto());

        assertThat(LinuxMemory.replaceWithHugePages(address, bytes.length)).isTrue();
        Files.write(file, new byte[bytes.length]); // the file zeroed: a mapping of it would now read zeros

        assertThat(view.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytes);
    }

    @Test
    void theJdksReadOnlyMappingOnAHugePageBoundaryIsReplacedTheSameWay() throws IOException {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "moving needs Linux's mremap");
        byte[] bytes = new byte[(5 << 20) + 12345];
        new Random(4).nextBytes(bytes);
        Path file = Files.write(dir.resolve("copies"), bytes);
        try (var channel = FileChannel.open(file)) {
            var mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes.length, Arena.ofAuto());
            // the copy cache's way in (CopyCacheFile); the kernels of this project's machines place it so
            assumeTrue(LinuxMemory.startsHugePage(mapping.address()), "the kernel placed the mapping off a huge page's boundary");

            assertThat(LinuxMemory.replaceWithHugePages(mapping.address(), bytes.length)).isTrue();
            Files.write(file, new byte[bytes.length]);

            assertThat(mapping.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytes);
        }
    }

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
