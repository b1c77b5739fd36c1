package workloads.xalan;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.transform.Templates;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.stream.StreamResult;
import javax.xml.transform.stream.StreamSource;
import workloads.Results;

/**
 * Transforms the generated catalogue with the generated stylesheet using
 * xalan's interpretive processor ({@code org.apache.xalan.processor.TransformerFactoryImpl},
 * not the JDK's XSLTC) into {@code out/report.xml}; the stylesheet is compiled
 * once and applied twice (the second time with another parameter).
 */
public final class Main {
    private Main() {}

    /** {@code Main INPUT_DIR}. */
    public static void main(String[] args) throws Exception {
        Path in = Path.of(args[0]);
        TransformerFactory f = new org.apache.xalan.processor.TransformerFactoryImpl();
        Templates t = f.newTemplates(new StreamSource(in.resolve("report.xsl").toFile()));
        Path out = Results.dir();
        for (int cheap : new int[] {20, 50}) {
            Transformer tr = t.newTransformer();
            tr.setParameter("cheap", cheap);
            Path result = out.resolve("report-" + cheap + ".xml");
            tr.transform(new StreamSource(in.resolve("catalog.xml").toFile()), new StreamResult(result.toFile()));
            System.out.println("xalan: " + result.getFileName() + " " + Files.size(result) + " bytes, by "
                    + tr.getClass().getName());
        }
    }
}
