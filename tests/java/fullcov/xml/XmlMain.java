import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** Parses a small document with java.xml (tests/tests/full_coverage.rs). */
public class XmlMain {
    public static void main(String[] args) throws Exception {
        StringBuilder xml = new StringBuilder("<root>");
        for (int i = 0; i < 50; i++) {
            xml.append("<item n='").append(i).append("'>v").append(i * i).append("</item>");
        }
        xml.append("</root>");
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(xml.toString().getBytes(StandardCharsets.UTF_8)));
        NodeList items = d.getElementsByTagName("item");
        long sum = 0;
        for (int i = 0; i < items.getLength(); i++) {
            Element e = (Element) items.item(i);
            sum += Integer.parseInt(e.getAttribute("n")) * (long) e.getTextContent().length();
        }
        System.out.println(items.getLength() + " items, checksum " + sum);
    }
}
