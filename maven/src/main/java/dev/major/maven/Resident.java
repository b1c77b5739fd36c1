package dev.major.maven;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.apache.maven.plugin.logging.Log;

/**
 * A resident major ({@code major serve}): weaves run in one long-lived process that every module
 * and every later build talks to over a Unix socket, instead of a process started per weave.
 *
 * <p>The socket is {@code <directory>/<hash>.sock}, the hash over the binary's identity and the
 * environment the server takes its defaults from: a rebuilt binary, or another cache directory,
 * gets a server of its own (the old one exits when idle). The directory must belong to the user
 * and be closed to others (whoever can connect can weave as the user); it is made so if missing.
 * The server is started on first use, with its output in {@code <hash>.log} there, and exits after
 * {@code idleSeconds} without a request.
 *
 * <p>The protocol is {@code major serve}'s (weaver/src/serve.rs): big-endian 32-bit numbers,
 * strings as their UTF-8 length and bytes.
 */
final class Resident {
    private static final String MAGIC = "major-serve/1";

    /** How long a server just started has to start listening. */
    private static final long START_MILLIS = 10_000;

    private final Path binary;
    private final Path socket;
    private final long idleSeconds;
    private final Log log;

    Resident(Path binary, String identity, File directory, long idleSeconds, Log log)
            throws IOException {
        this.binary = binary;
        this.idleSeconds = idleSeconds;
        this.log = log;
        Path dir = directory.toPath().toAbsolutePath().normalize();
        privateDirectory(dir);
        MessageDigest md = Digests.sha256();
        for (String s : new String[] {
                identity,
                "MAJOR_CACHE_DIR=" + System.getenv("MAJOR_CACHE_DIR"),
                "XDG_CACHE_HOME=" + System.getenv("XDG_CACHE_HOME"),
                "HOME=" + System.getenv("HOME")}) {
            md.update((s + "\n").getBytes(StandardCharsets.UTF_8));
        }
        this.socket = dir.resolve(Digests.hex(md.digest()).substring(0, 16) + ".sock");
    }

    /** The default directory of the sockets: private to the user, under the temporary directory. */
    static File defaultDirectory() {
        return new File(System.getProperty("java.io.tmpdir"), "major-" + System.getProperty("user.name"));
    }

    /** The socket of this binary's server. */
    Path socket() {
        return socket;
    }

    /**
     * Runs {@code major <args>} (a weave) in the server, in {@code cwd}, starting the server if
     * none listens: what it printed (standard output, then standard error) and its exit code.
     */
    Major.Result run(Path cwd, List<String> args) throws IOException {
        SocketChannel channel = connect();
        if (channel == null) {
            start();
            long deadline = System.currentTimeMillis() + START_MILLIS;
            while ((channel = connect()) == null) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException(
                            "the resident major did not start listening on " + socket + " (see " + logFile() + ")");
                }
                sleep(20);
            }
        }
        try (SocketChannel c = channel) {
            List<String> strings = new ArrayList<>();
            strings.add(MAGIC);
            strings.add("weave");
            strings.add(cwd.toString());
            strings.addAll(args);
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(request);
            out.writeInt(strings.size());
            for (String s : strings) {
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                out.writeInt(b.length);
                out.write(b);
            }
            OutputStream os = Channels.newOutputStream(c);
            os.write(request.toByteArray());
            os.flush();
            DataInputStream in = new DataInputStream(Channels.newInputStream(c));
            int code = in.readInt();
            String stdout = string(in);
            String stderr = string(in);
            return new Major.Result(code, stdout + stderr);
        }
    }

    private static String string(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** A connection to the server, or {@code null} if none listens. */
    private SocketChannel connect() throws IOException {
        if (!Files.exists(socket)) {
            return null;
        }
        SocketChannel channel = open();
        try {
            channel.connect(address(socket));
            return channel;
        } catch (IOException refused) {
            channel.close();
            return null;
        }
    }

    /** Starts {@code major serve} on the socket, detached from this build's output. */
    private void start() throws IOException {
        List<String> command = List.of(
                binary.toString(),
                "serve",
                "--socket",
                socket.toString(),
                "--idle-timeout",
                Long.toString(idleSeconds));
        log.debug("major: starting " + String.join(" ", command));
        // The messages it sends back are parsed: plain text, as from a process.
        Major.plainText(new ProcessBuilder(command)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                        .redirectErrorStream(true))
                .start();
    }

    private Path logFile() {
        String name = socket.getFileName().toString();
        return socket.resolveSibling(name.substring(0, name.length() - ".sock".length()) + ".log");
    }

    /** Makes {@code dir} if missing, closed to others; refuses one another user could write. */
    private static void privateDirectory(Path dir) throws IOException {
        Set<PosixFilePermission> owner = EnumSet.of(
                PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(owner));
        }
        String user = System.getProperty("user.name");
        String holder = Files.getOwner(dir).getName();
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
        if (!holder.equals(user) || !owner.containsAll(perms)) {
            throw new IOException(dir + " belongs to " + holder + " with permissions "
                    + PosixFilePermissions.toString(perms) + ": a resident major's socket needs a"
                    + " directory only " + user + " can use (rwx------)");
        }
    }

    // Unix-domain sockets are Java 16's; the plugin is compiled for Java 11, so they are reached
    // by reflection (an older JVM gets a clear error, and the build runs major as a process).

    private static SocketChannel open() throws IOException {
        try {
            ProtocolFamily unix = StandardProtocolFamily.valueOf("UNIX");
            return (SocketChannel) SocketChannel.class
                    .getMethod("open", ProtocolFamily.class)
                    .invoke(null, unix);
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            throw new IOException("a resident major needs Java 16 or later to run Maven (Unix sockets)", e);
        }
    }

    private static SocketAddress address(Path socket) throws IOException {
        try {
            return (SocketAddress) Class.forName("java.net.UnixDomainSocketAddress")
                    .getMethod("of", Path.class)
                    .invoke(null, socket);
        } catch (ReflectiveOperationException e) {
            throw new IOException("a resident major needs Java 16 or later to run Maven (Unix sockets)", e);
        }
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the resident major", e);
        }
    }
}
