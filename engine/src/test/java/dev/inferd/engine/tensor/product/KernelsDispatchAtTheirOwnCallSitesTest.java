package dev.inferd.engine.tensor.product;

import dev.inferd.engine.tensor.format.q4_0.Q4_0Interleaved;
import dev.inferd.engine.tensor.format.q4_k.Q4_KInterleaved;
import dev.inferd.engine.tensor.format.q5_k.Q5_KInterleaved;
import dev.inferd.engine.tensor.format.q6_k.Q6_KInterleaved;
import dev.inferd.engine.tensor.format.q8_0.Q8_0Interleaved;
import dev.inferd.engine.tensor.product.IntTiledProduct;
import dev.inferd.engine.tensor.product.InterleavedRows;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interleaved copies' code calls only those Vector API methods whose dispatch C2 decides from a profile
 * of the kernel's own call site (see {@link InterleavedRows}): lane-wise operations with vector operands,
 * {@code convertShape}, {@code reinterpretShape}, and the static factories on a named species. The
 * convenience methods ({@code add}, {@code mul}, {@code fma}, a shift by a scalar, {@code reinterpretAsInts})
 * dispatch inside the JDK, at a call site whose profile every caller in the process shares, and other code's
 * 256-bit vectors in that profile made the 1B Q4_0 kernel compile boxed on about one bench start in three
 *.
 */
class KernelsDispatchAtTheirOwnCallSitesTest {
    /** Instance methods whose dispatch happens at the caller's own call site. */
    private static final Set<String> OWN_SITE = Set.of("lanewise", "convertShape", "reinterpretShape", "reduceLanes",
            "withLane");
    /** Final stores, whose dispatch is inside the JDK: once per kernel call, after its loops. */
    private static final Set<String> STORES = Set.of("intoArray", "intoMemorySegment");

    @ParameterizedTest
    @ValueSource(classes = {InterleavedRows.class, Q8_0Interleaved.class, Q4_0Interleaved.class, Q4_KInterleaved.class, Q5_KInterleaved.class,
            Q6_KInterleaved.class, IntTiledProduct.class})
    void callsNoVectorMethodThatDispatchesInASharedProfile(Class<?> kernels) throws IOException {
        List<String> shared = new ArrayList<>();
        for (var method : parse(kernels).methods()) {
            if (method.methodName().equalsString("<clinit>")) continue; // choosing the species, once
            method.code().ifPresent(code -> code.forEach(element -> {
                if (element instanceof InvokeInstruction call && isVectorApi(call.owner().asSymbol())
                        && call.opcode() != Opcode.INVOKESTATIC && !allowed(call)) {
                    shared.add(method.methodName() + ": " + call.owner().asSymbol().displayName() + "."
                            + call.name() + call.typeSymbol().displayDescriptor());
                }
            }));
        }
        assertThat(shared).as("Vector API calls of %s dispatched in the JDK's shared profiles", kernels.getSimpleName()).isEmpty();
    }

    private static boolean allowed(InvokeInstruction call) {
        if (call.owner().asSymbol().displayName().equals("VectorSpecies")) return true; // a constant's query, no vector
        String name = call.name().stringValue();
        if (STORES.contains(name)) return true;
        if (!OWN_SITE.contains(name)) return false;
        // lanewise(op, scalar) is final: it broadcasts, or shifts, inside the JDK
        return !name.equals("lanewise") || call.typeSymbol().parameterList().stream().noneMatch(ClassDesc::isPrimitive);
    }

    private static boolean isVectorApi(ClassDesc owner) {
        return owner.packageName().equals("jdk.incubator.vector");
    }

    private static ClassModel parse(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            return ClassFile.of().parse(in.readAllBytes());
        }
    }
}
