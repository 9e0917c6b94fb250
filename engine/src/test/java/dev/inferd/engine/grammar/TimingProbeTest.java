package dev.inferd.engine.grammar;

import org.junit.jupiter.api.Test;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

class TimingProbeTest {
    @Test
    void probe() throws Exception {
        String text = new String(getClass().getResourceAsStream("property-schemas.json").readAllBytes(), StandardCharsets.UTF_8);
        var bytes = dev.inferd.engine.model.synthetic.SyntheticByteLevelVocabulary.tokenBytes(8192);
        var v = TokenVocabulary.of(bytes, new int[] {8192 - 255});
        long[] mask = new long[v.maskWords()];
        for (int round = 0; round < 2; round++)
        for (Object e : (List<?>) MiniJsonSchemas.parse(text)) {
            var m = (Map<?, ?>) e;
            long a = System.nanoTime();
            var g = dev.inferd.engine.grammar.json.JsonSchemaCompiler.compile(m.get("schema"));
            long b = System.nanoTime();
            var matcher = g.matcher(v);
            var rnd = new java.util.SplittableRandom(1);
            int steps = 0;
            for (; steps < 100 && !matcher.isEnded(); steps++) {
                matcher.fillMask(mask);
                var ok = GrammarMatcherTest.allowed(mask, v.size());
                if (ok.isEmpty()) break;
                matcher.accept(ok.get(rnd.nextInt(ok.size())));
            }
            long c = System.nanoTime();
            System.out.printf("%-16s compile %6.1f ms (%d states) walk %d steps %7.1f ms dfa %d%n", m.get("name"), (b - a) / 1e6, g.stateCount(), steps, (c - b) / 1e6, g.dfa().stateCount());
        }
    }
}
