package dev.inferd.engine;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What C2 compiled, read from HotSpot's compilation log ({@code -XX:+LogCompilation}): for each C2 compile, the
 * Vector API calls it dispatched on a type profile. Such a call's profile is often that of a Vector API method
 * shared by all the process's code ({@code FloatVector.fma}, {@code intoArray}), so what it holds depends on what
 * other code ran first; where it holds two vector shapes, C2 inlines both and may box the vectors.
 */
public final class CompileLog {
    private CompileLog() {
    }

    /** One C2 compile: its method as the log names it ({@code dev.inferd.engine.X kernel (...)V}), and its profiled Vector API calls. */
    public record Compile(String method, boolean osr, List<ProfiledCall> profiledVectorCalls) {
        public boolean of(Class<?> holder, String name) {
            return method.startsWith(holder.getName() + " " + name + " ");
        }

        /** Those of its profiled calls whose profile is a Vector API method's, shared by all its callers. */
        public List<ProfiledCall> sharedProfileCalls() {
            return profiledVectorCalls.stream().filter(ProfiledCall::inVectorApi).toList();
        }
    }

    /**
     * A call C2 dispatched on a type profile: {@code callee} called from {@code site} (both {@code Class::method}),
     * on {@code receiver}, or {@code receiver} or {@code second} where the profile held two classes.
     */
    public record ProfiledCall(String site, String callee, String receiver, String second) {
        /** Whether the call is in a Vector API method, whose profile every caller's vectors fill. */
        public boolean inVectorApi() {
            return site.startsWith(VECTOR_API);
        }

        @Override
        public String toString() {
            return site + " -> " + callee + " on " + receiver + (second != null ? " or " + second : "");
        }
    }

    private static final String VECTOR_API = "jdk.incubator.vector.";

    /** The flags that make a JVM write its compilation log to {@code log}. */
    public static List<String> flags(Path log) {
        return List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:+LogCompilation", "-XX:LogFile=" + log);
    }

    /** The C2 compiles in the log a JVM wrote at its exit. */
    public static List<Compile> c2Compiles(Path log) throws IOException, XMLStreamException {
        var factory = XMLInputFactory.newFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        List<Compile> compiles = new ArrayList<>();
        try (InputStream in = Files.newInputStream(log)) {
            XMLStreamReader xml = factory.createXMLStreamReader(in);
            Task task = null;
            while (xml.hasNext()) {
                int event = xml.next();
                if (event == XMLStreamConstants.END_ELEMENT && task != null) {
                    if (xml.getLocalName().equals("parse")) task.parsing.pop();
                    if (xml.getLocalName().equals("task")) {
                        if (task.c2) compiles.add(new Compile(task.method, task.osr, List.copyOf(task.profiled)));
                        task = null;
                    }
                }
                if (event != XMLStreamConstants.START_ELEMENT) continue;
                switch (xml.getLocalName()) {
                    case "task" -> task = new Task(xml.getAttributeValue(null, "method"),
                            isC2(xml.getAttributeValue(null, "level")),
                            xml.getAttributeValue(null, "osr_bci") != null);
                    case "klass" -> {
                        if (task != null) task.klasses.put(xml.getAttributeValue(null, "id"), xml.getAttributeValue(null, "name"));
                    }
                    case "method" -> {
                        if (task != null) {
                            task.methods.put(xml.getAttributeValue(null, "id"),
                                    task.klasses.get(xml.getAttributeValue(null, "holder")) + "::" + xml.getAttributeValue(null, "name"));
                        }
                    }
                    case "parse" -> {
                        if (task != null) task.parsing.push(task.methods.getOrDefault(xml.getAttributeValue(null, "method"), "?"));
                    }
                    case "call" -> {
                        if (task != null) task.call(xml);
                    }
                    default -> { }
                }
            }
        }
        return compiles;
    }

    /** C1's compiles name their tier (1 to 3); C2's name none, or 4. */
    private static boolean isC2(String level) {
        return level == null || level.equals("4");
    }

    /** A compile being read: the ids of its classes and methods (numbered per compile) and its profiled calls. */
    private static final class Task {
        final String method;
        final boolean c2;
        final boolean osr;
        final Map<String, String> klasses = new HashMap<>();
        final Map<String, String> methods = new HashMap<>();
        final List<ProfiledCall> profiled = new ArrayList<>();
        /** The methods being parsed, the innermost (where a call is) on top. */
        final Deque<String> parsing = new ArrayDeque<>();

        Task(String method, boolean c2, boolean osr) {
            this.method = method;
            this.c2 = c2;
            this.osr = osr;
        }

        void call(XMLStreamReader xml) {
            String receiver = klasses.get(xml.getAttributeValue(null, "receiver"));
            if (receiver == null || !receiver.startsWith(VECTOR_API)) return;
            profiled.add(new ProfiledCall(String.valueOf(parsing.peek()), methods.get(xml.getAttributeValue(null, "method")),
                    receiver, klasses.get(xml.getAttributeValue(null, "receiver2"))));
        }
    }
}
