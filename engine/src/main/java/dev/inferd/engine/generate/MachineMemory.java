package dev.inferd.engine.generate;

import java.lang.management.ManagementFactory;

/** The machine's physical memory, for sizing defaults. */
final class MachineMemory {
    private MachineMemory() {
    }

    /** Total physical memory in bytes, or the Java heap's limit when the platform does not say. */
    static long physicalBytes() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            long total = os.getTotalMemorySize();
            if (total > 0) return total;
        }
        return Runtime.getRuntime().maxMemory();
    }
}
