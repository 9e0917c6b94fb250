/**
 * JMH benchmarks of the engine's kernels. Build and run them with:
 *
 * <pre>{@code
 * ./mvnw -B -q -ntp -pl bench -am package -DskipTests
 * java @jvm.options -jar bench/target/benchmarks.jar MatMulBenchmark -p type=Q8_0,Q4_0 -p batch=1 -p threads=2
 * java -jar bench/target/benchmarks.jar -l        # list the benchmarks
 * }</pre>
 *
 * Every {@code @Param} can be narrowed with {@code -p name=v1,v2}; the forked JVMs inherit the host's
 * options, so {@code @jvm.options} (the launcher's and the tests' JVM options, at the repository's root)
 * reaches them. On a shared machine compare runs taken back to back,
 * not against figures from another day.
 */
package dev.inferd.bench.kernels;
