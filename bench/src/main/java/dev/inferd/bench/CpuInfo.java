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
 * neither, so inferd's integer kernels take 16-bit multiplies everywhere. On a Zen 4 (AVX-512 and VNNI, no AMX)
 * the two engines decoded within a few percent of each other; on a Xeon with AMX llama.cpp prefilled twice as fast
 * and decoded a Q4_0 1.45x as fast (session 28). A figure beside llama.cpp's means little without this line.
 *
 * @param model      the CPU's model name ({@code os.arch} where the system does not say)
 * @param cores      processors available to the JVM
 * @param vectorBits the Vector API's preferred width on this machine, the width inferd's kernels take
 * @param features   the relevant instruction sets present, in {@link #FEATURES} order, by their usual names
 */
public record CpuInfo(String model, int cores, int vectorBits, List<String> features) {

    /** {@code /proc/cpuinfo} flags worth reporting, and the names they are usually known by. */
    static final List<String[]> FEATURES = List.of(
            new String[] {"avx2", "AVX2"},
            new String[] {"avx512f", "AVX-512"},
            new String[] {"avx512_vnni", "AVX512-VNNI"},
            new String[] {"avx_vnni", "AVX-VNNI"},
            new String[] {"avx512_bf16", "AVX512-BF16"},
            new String[] {"amx_int8", "AMX-INT8"});

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
        for (String[] f : FEATURES) {
            if (flags.contains(f[0])) present.add(f[1]);
        }
        return new CpuInfo(model != null ? model : System.getProperty("os.arch"), cores, vectorBits, present);
    }

    /** One line for a report, e.g. {@code Intel(R) Xeon(R) Processor, 2 cores, 512-bit vectors; AVX2, AVX-512, AMX-INT8}. */
    public String describe() {
        String line = model + ", " + cores + (cores == 1 ? " core" : " cores") + ", " + vectorBits + "-bit vectors";
        return features.isEmpty() ? line : line + "; " + String.join(", ", features);
    }
}
