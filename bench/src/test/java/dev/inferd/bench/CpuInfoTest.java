package dev.inferd.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CpuInfoTest {
    private static final String XEON = """
            processor\t: 0
            vendor_id\t: GenuineIntel
            model name\t: Intel(R) Xeon(R) Processor
            flags\t\t: fpu sse2 avx2 avx512f avx512bw avx_vnni avx512_bf16 avx512_vnni amx_bf16 amx_tile amx_int8
            
            processor\t: 1
            model name\t: Intel(R) Xeon(R) Processor
            flags\t\t: fpu sse2
            """;

    @Test
    void takesTheFirstProcessorsNameAndTheFeaturesThatDecideTheComparison() {
        var cpu = CpuInfo.parse(XEON, 2, 512);

        assertThat(cpu.model()).isEqualTo("Intel(R) Xeon(R) Processor");
        assertThat(cpu.features()).containsExactly("AVX2", "AVX-512", "AVX512-VNNI", "AVX-VNNI", "AVX512-BF16", "AMX-INT8");
        assertThat(cpu.describe()).isEqualTo("Intel(R) Xeon(R) Processor, 2 cores, 512-bit vectors; "
                + "AVX2, AVX-512, AVX512-VNNI, AVX-VNNI, AVX512-BF16, AMX-INT8");
    }

    @Test
    void aFlagIsMatchedWholeNotAsAPrefix() {
        var cpu = CpuInfo.parse("model name : Some CPU\nflags : avx512fp16 amx_bf16 avx\n", 1, 256);

        assertThat(cpu.features()).isEmpty();
        assertThat(cpu.describe()).isEqualTo("Some CPU, 1 core, 256-bit vectors");
    }

    @Test
    void withoutAModelNameTheArchitectureStandsIn() {
        var cpu = CpuInfo.parse("processor : 0\nflags : avx2\n", 4, 256);

        assertThat(cpu.model()).isEqualTo(System.getProperty("os.arch"));
        assertThat(cpu.features()).containsExactly("AVX2");
    }

    @Test
    void detectsThisMachine() {
        var cpu = CpuInfo.detect();

        assertThat(cpu.model()).isNotBlank();
        assertThat(cpu.cores()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(cpu.vectorBits()).isIn(64, 128, 256, 512);
    }
}
