package dev.inferd.app.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which of the project's packages the main code of each package uses, read from the sources: imports
 * and fully qualified names outside comments, string literals left out.
 */
final class PackageDependencies {
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    /** A project package followed by a type name (capitalized) or a wildcard. */
    private static final Pattern REFERENCE = Pattern.compile("\\b(dev\\.inferd(?:\\.[a-z_][a-z0-9_]*)+)\\.(?:[A-Z]|\\*)");

    private final Map<String, Set<String>> uses = new TreeMap<>();

    /** The main sources of every module under {@code root} ({@code *}/src/main/java). */
    static PackageDependencies ofProject(Path root) {
        var deps = new PackageDependencies();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> Files.isDirectory(m.resolve("src/main/java"))).toList()) {
                try (Stream<Path> files = Files.walk(module.resolve("src/main/java"))) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) deps.add(Files.readString(f));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return deps;
    }

    /** Adds one compilation unit. */
    void add(String source) {
        String code = withoutCommentsAndStrings(source);
        Matcher p = PACKAGE.matcher(code);
        if (!p.find()) return;
        String own = p.group(1);
        Set<String> used = uses.computeIfAbsent(own, k -> new TreeSet<>());
        Matcher m = REFERENCE.matcher(code);
        while (m.find()) {
            String pkg = m.group(1);
            if (!pkg.equals(own)) used.add(pkg);
        }
    }

    Set<String> packages() {
        return uses.keySet();
    }

    /** The groups of packages that use each other in a circle (strongly connected components of two or more). */
    List<Set<String>> cycles() {
        var index = new HashMap<String, Integer>();
        var low = new HashMap<String, Integer>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> cycles = new ArrayList<>();
        int[] counter = {0};
        for (String v : uses.keySet()) {
            if (!index.containsKey(v)) connect(v, index, low, stack, onStack, cycles, counter);
        }
        return cycles;
    }

    /** Tarjan's algorithm, one vertex. */
    private void connect(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
                         Set<String> onStack, List<Set<String>> cycles, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : uses.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, index, low, stack, onStack, cycles, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) cycles.add(component);
        }
    }

    /** Which packages of {@code component} each of its packages uses: the edges to cut. */
    String describe(Set<String> component) {
        var sb = new StringBuilder();
        for (String p : component) {
            for (String q : uses.getOrDefault(p, Set.of())) {
                if (component.contains(q)) sb.append("\n  ").append(p).append(" -> ").append(q);
            }
        }
        return sb.toString();
    }

    /** The source with comments removed and string, text-block and char literals emptied. */
    static String withoutCommentsAndStrings(String s) {
        var out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (s.startsWith("//", i)) {
                int end = s.indexOf('\n', i);
                i = end < 0 ? s.length() : end;
            } else if (s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? s.length() : end + 2;
                out.append(' ');
            } else if (s.startsWith("\"\"\"", i)) {
                int end = s.indexOf("\"\"\"", i + 3);
                i = end < 0 ? s.length() : end + 3;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < s.length() && s.charAt(j) != c) j += s.charAt(j) == '\\' ? 2 : 1;
                i = j + 1;
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
