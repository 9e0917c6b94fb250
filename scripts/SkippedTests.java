import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Lists the tests Surefire reported as skipped, with the reason each gave: one line per test,
 * {@code module: Class > test: reason}. Run by ./test after each step (java scripts/SkippedTests.java MARKER);
 * only reports written since MARKER was touched count, so a report left by an earlier build is not read again.
 */
public class SkippedTests {

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java scripts/SkippedTests.java MARKER_FILE");
            System.exit(2);
        }
        long since = Files.getLastModifiedTime(Path.of(args[0])).toMillis();
        List<Path> reports = new ArrayList<>();
        try (Stream<Path> modules = Files.list(Path.of("."))) {
            for (Path module : modules.filter(Files::isDirectory).sorted().toList()) {
                Path dir = module.resolve("target/surefire-reports");
                if (!Files.isDirectory(dir)) continue;
                try (Stream<Path> files = Files.list(dir)) {
                    files.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml"))
                            .filter(f -> modifiedSince(f, since)).sorted().forEach(reports::add);
                }
            }
        }
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        for (Path report : reports) {
            String module = report.getParent().getParent().getParent().getFileName().toString();
            NodeList cases = factory.newDocumentBuilder().parse(report.toFile()).getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element testcase = (Element) cases.item(i);
                NodeList skipped = testcase.getElementsByTagName("skipped");
                if (skipped.getLength() == 0) continue;
                String reason = ((Element) skipped.item(0)).getAttribute("message").strip().replaceAll("\\s+", " ");
                String type = testcase.getAttribute("classname");
                System.out.println(module + ": " + type.substring(type.lastIndexOf('.') + 1) + " > "
                        + testcase.getAttribute("name") + ": " + (reason.isEmpty() ? "(no reason given)" : reason));
            }
        }
    }

    private static boolean modifiedSince(Path file, long since) {
        try {
            return Files.getLastModifiedTime(file).toMillis() >= since;
        } catch (IOException e) {
            return false;
        }
    }
}
