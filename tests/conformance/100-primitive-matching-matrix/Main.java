public class Main {
    static boolean pboolean(boolean v) { return v; }
    static byte pbyte(byte v) { return v; }
    static char pchar(char v) { return v; }
    static short pshort(short v) { return v; }
    static int pint(int v) { return v; }
    static long plong(long v) { return v; }
    static float pfloat(float v) { return v; }
    static double pdouble(double v) { return v; }
    static Boolean pBoolean(Boolean v) { return v; }
    static Byte pByte(Byte v) { return v; }
    static Character pCharacter(Character v) { return v; }
    static Short pShort(Short v) { return v; }
    static Integer pInteger(Integer v) { return v; }
    static Long pLong(Long v) { return v; }
    static Float pFloat(Float v) { return v; }
    static Double pDouble(Double v) { return v; }
    static Number pNumber(Number v) { return v; }
    static Object pObject(Object v) { return v; }

    public static void main(String[] args) {
        pboolean(true);
        System.out.println("boolean:" + Log.take());
        pbyte((byte) 65);
        System.out.println("byte:" + Log.take());
        pchar('A');
        System.out.println("char:" + Log.take());
        pshort((short) 65);
        System.out.println("short:" + Log.take());
        pint(65);
        System.out.println("int:" + Log.take());
        plong(65L);
        System.out.println("long:" + Log.take());
        pfloat(65f);
        System.out.println("float:" + Log.take());
        pdouble(65d);
        System.out.println("double:" + Log.take());
        pBoolean(true);
        System.out.println("Boolean:" + Log.take());
        pByte((byte) 65);
        System.out.println("Byte:" + Log.take());
        pCharacter('A');
        System.out.println("Character:" + Log.take());
        pShort((short) 65);
        System.out.println("Short:" + Log.take());
        pInteger(65);
        System.out.println("Integer:" + Log.take());
        pLong(65L);
        System.out.println("Long:" + Log.take());
        pFloat(65f);
        System.out.println("Float:" + Log.take());
        pDouble(65d);
        System.out.println("Double:" + Log.take());
        pNumber(Integer.valueOf(65));
        System.out.println("Number:" + Log.take());
        pObject(Integer.valueOf(65));
        System.out.println("Object:" + Log.take());
    }
}
