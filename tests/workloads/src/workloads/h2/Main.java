package workloads.h2;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import workloads.SqlWorkload;

/**
 * Runs the shared SQL workload ({@link SqlWorkload}) on an H2 file database
 * under {@code db/} of the work directory (MVStore), through H2's JDBC driver.
 */
public final class Main {
    private Main() {}

    /** {@code Main INPUT_DIR}. */
    public static void main(String[] args) throws Exception {
        Path in = Path.of(args[0]);
        String url = "jdbc:h2:./db/workload;DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0";
        try (Connection db = new org.h2.Driver().connect(url, new java.util.Properties())) {
            SqlWorkload.run(db, in, "h2");
            db.setAutoCommit(true);
            try (Statement s = db.createStatement()) {
                s.execute("SHUTDOWN");
            }
        }
    }
}
