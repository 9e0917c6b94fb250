package dev.inferd.bench;

import jdk.incubator.vector.FloatVector;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The processor a benchmark ran on, for its report: the model name, the cores, the vector width inferd's kernels
 * use, and the instruction sets that decide how a peer compares. llama.cpp multiplies 8-bit integers with
 * {@code vpdpbusd} where the CPU has VNNI and prefills with AMX tiles where it has those; the Vector API exposes
 * neither, so inferd's integer kernels take 16-bit multiplies everywhere. The same two engines compare very
 * differently on a Zen 4 (AVX-512 and VNNI, no AMX) and on a Xeon with AMX (docs/performance.md): a figure
 * beside llama.cpp's means little without this line.
 *
 * @param model      the CPU's model name ({@code os.arch} where the system does not say)
 * @param cores      processors available to the JVM
 * @param vectorBits the Vector API's preferred width on this machine, the width inferd's kernels take
 * @param features   the instruction sets among those that decide the comparison (AVX2, AVX-512, the VNNIs, BF16,
 *                   AMX-INT8) that this CPU has, by their usual names
 */
public record CpuInfo(String model, int cores, int vectorBits, List<String> features) {

    /** A {@code /proc/cpuinfo} flag worth reporting, and the name it is usually known by. */
    private record Feature(String flag, String name) {
    }

    private static final List<Feature> FEATURES = List.of(
            new Feature("avx2", "AVX2"),
            new Feature("avx512f", "AVX-512"),
            new Feature("avx512_vnni", "AVX512-VNNI"),
            new Feature("avx_vnni", "AVX-VNNI"),
            new Feature("avx512_bf16", "AVX512-BF16"),
            new Feature("amx_int8", "AMX-INT8"));

    public CpuInfo {
        features = List.copyOf(features);
    }

    /** This machine's, from {@code /proc/cpuinfo} where there is one (Linux). */
    public static CpuInfo detect() {
        int cores = Runtime.getRuntime().availableProcessors();
        int bits = FloatVector.SPECIES_PREFERRED.vectorBitSize();
        Path proc = Path.of("/proc/cpuinfo");
        if (Files.isReadable(proc)) {
            try {
                return parse(Files.readString(proc), cores, bits);
            } catch (IOException | RuntimeException e) {
                // fall through: a report without the CPU's name is still a report
            }
        }
        return new CpuInfo(System.getProperty("os.arch"), cores, bits, List.of());
    }

    /** From the text of a Linux {@code /proc/cpuinfo}: its first processor's {@code model name} and {@code flags}. */
    static CpuInfo parse(String cpuinfo, int cores, int vectorBits) {
        String model = null;
        Set<String> flags = Set.of();
        for (String line : cpuinfo.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) continue;
            String key = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            if (model == null && key.equals("model name")) model = value;
            if (flags.isEmpty() && key.equals("flags")) flags = Set.copyOf(Arrays.asList(value.split("\\s+")));
        }
        var present = new ArrayList<String>();
        for (Feature f : FEATURES) {
            if (flags.contains(f.flag())) present.add(f.name());
        }
        return new CpuInfo(model != null ? model : System.getProperty("os.arch"), cores, vectorBits, present);
    }

    /** One line for a report, e.g. {@code Intel(R) Xeon(R) Processor, 2 cores, 512-bit vectors; AVX2, AVX-512, AMX-INT8}. */
    public String describe() {
        String line = model + ", " + cores + (cores == 1 ? " core" : " cores") + ", " + vectorBits + "-bit vectors";
        return features.isEmpty() ? line : line + "; " + String.join(", ", features);
    }
}
