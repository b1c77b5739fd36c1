//! The one opcode table. Each of the JVM's opcodes is listed once with its mnemonic,
//! the shape of its operands, and its stack effect; the decoder, the encoder, the
//! frame computation and the disassembler all read this table.

/// How an instruction's operands are laid out after the opcode byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// No operands.
    None,
    /// A local-variable index: `u1`, or `u2` behind `wide`.
    Local,
    /// `bipush`: a signed byte.
    Byte,
    /// `sipush`: a signed short.
    Short,
    /// `ldc`: a `u1` constant-pool index.
    CpU8,
    /// A `u2` constant-pool index.
    CpU16,
    /// `iinc`: local index and signed delta (`u1`,`i1`, or `u2`,`i2` behind `wide`).
    Iinc,
    /// A signed 16-bit branch offset.
    Branch16,
    /// A signed 32-bit branch offset.
    Branch32,
    /// `tableswitch`.
    TableSwitch,
    /// `lookupswitch`.
    LookupSwitch,
    /// `invokeinterface`: `u2` index, `u1` count, `u1` zero.
    InvokeInterface,
    /// `invokedynamic`: `u2` index, two zero bytes.
    InvokeDynamic,
    /// `newarray`: `u1` array type.
    NewArray,
    /// `multianewarray`: `u2` index, `u1` dimensions.
    MultiANewArray,
    /// The `wide` prefix.
    Wide,
    /// Not an opcode.
    Invalid,
}

/// One row of the opcode table.
#[derive(Debug, Clone, Copy)]
pub struct OpInfo {
    /// Mnemonic, as `javap` prints it.
    pub name: &'static str,
    /// Operand layout.
    pub shape: Shape,
    /// Stack effect as `pops>pushes`, one letter a value: `I` int, `F` float,
    /// `J` long, `D` double (two slots each), `A` reference, `X` one slot of any
    /// type, `N` null. `*` means the effect depends on operands or types and is
    /// handled by name in the frame computation.
    pub stack: &'static str,
}

const fn op(name: &'static str, shape: Shape, stack: &'static str) -> OpInfo {
    OpInfo { name, shape, stack }
}

const INVALID: OpInfo = op("<invalid>", Shape::Invalid, "*");

/// Builds the 256-entry table from the list of defined opcodes.
const fn build(defs: &[(u8, OpInfo)]) -> [OpInfo; 256] {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < defs.len() {
        t[defs[i].0 as usize] = defs[i].1;
        i += 1;
    }
    t
}

use Shape as S;

/// The opcode table, indexed by opcode byte.
pub static OPCODES: [OpInfo; 256] = build(&[
    (0, op("nop", S::None, ">")),
    (1, op("aconst_null", S::None, ">N")),
    (2, op("iconst_m1", S::None, ">I")),
    (3, op("iconst_0", S::None, ">I")),
    (4, op("iconst_1", S::None, ">I")),
    (5, op("iconst_2", S::None, ">I")),
    (6, op("iconst_3", S::None, ">I")),
    (7, op("iconst_4", S::None, ">I")),
    (8, op("iconst_5", S::None, ">I")),
    (9, op("lconst_0", S::None, ">J")),
    (10, op("lconst_1", S::None, ">J")),
    (11, op("fconst_0", S::None, ">F")),
    (12, op("fconst_1", S::None, ">F")),
    (13, op("fconst_2", S::None, ">F")),
    (14, op("dconst_0", S::None, ">D")),
    (15, op("dconst_1", S::None, ">D")),
    (16, op("bipush", S::Byte, ">I")),
    (17, op("sipush", S::Short, ">I")),
    (18, op("ldc", S::CpU8, "*")),
    (19, op("ldc_w", S::CpU16, "*")),
    (20, op("ldc2_w", S::CpU16, "*")),
    (21, op("iload", S::Local, ">I")),
    (22, op("lload", S::Local, ">J")),
    (23, op("fload", S::Local, ">F")),
    (24, op("dload", S::Local, ">D")),
    (25, op("aload", S::Local, "*")),
    (26, op("iload_0", S::None, ">I")),
    (27, op("iload_1", S::None, ">I")),
    (28, op("iload_2", S::None, ">I")),
    (29, op("iload_3", S::None, ">I")),
    (30, op("lload_0", S::None, ">J")),
    (31, op("lload_1", S::None, ">J")),
    (32, op("lload_2", S::None, ">J")),
    (33, op("lload_3", S::None, ">J")),
    (34, op("fload_0", S::None, ">F")),
    (35, op("fload_1", S::None, ">F")),
    (36, op("fload_2", S::None, ">F")),
    (37, op("fload_3", S::None, ">F")),
    (38, op("dload_0", S::None, ">D")),
    (39, op("dload_1", S::None, ">D")),
    (40, op("dload_2", S::None, ">D")),
    (41, op("dload_3", S::None, ">D")),
    (42, op("aload_0", S::None, "*")),
    (43, op("aload_1", S::None, "*")),
    (44, op("aload_2", S::None, "*")),
    (45, op("aload_3", S::None, "*")),
    (46, op("iaload", S::None, "AI>I")),
    (47, op("laload", S::None, "AI>J")),
    (48, op("faload", S::None, "AI>F")),
    (49, op("daload", S::None, "AI>D")),
    (50, op("aaload", S::None, "*")),
    (51, op("baload", S::None, "AI>I")),
    (52, op("caload", S::None, "AI>I")),
    (53, op("saload", S::None, "AI>I")),
    (54, op("istore", S::Local, "*")),
    (55, op("lstore", S::Local, "*")),
    (56, op("fstore", S::Local, "*")),
    (57, op("dstore", S::Local, "*")),
    (58, op("astore", S::Local, "*")),
    (59, op("istore_0", S::None, "*")),
    (60, op("istore_1", S::None, "*")),
    (61, op("istore_2", S::None, "*")),
    (62, op("istore_3", S::None, "*")),
    (63, op("lstore_0", S::None, "*")),
    (64, op("lstore_1", S::None, "*")),
    (65, op("lstore_2", S::None, "*")),
    (66, op("lstore_3", S::None, "*")),
    (67, op("fstore_0", S::None, "*")),
    (68, op("fstore_1", S::None, "*")),
    (69, op("fstore_2", S::None, "*")),
    (70, op("fstore_3", S::None, "*")),
    (71, op("dstore_0", S::None, "*")),
    (72, op("dstore_1", S::None, "*")),
    (73, op("dstore_2", S::None, "*")),
    (74, op("dstore_3", S::None, "*")),
    (75, op("astore_0", S::None, "*")),
    (76, op("astore_1", S::None, "*")),
    (77, op("astore_2", S::None, "*")),
    (78, op("astore_3", S::None, "*")),
    (79, op("iastore", S::None, "AII>")),
    (80, op("lastore", S::None, "AIJ>")),
    (81, op("fastore", S::None, "AIF>")),
    (82, op("dastore", S::None, "AID>")),
    (83, op("aastore", S::None, "AIA>")),
    (84, op("bastore", S::None, "AII>")),
    (85, op("castore", S::None, "AII>")),
    (86, op("sastore", S::None, "AII>")),
    (87, op("pop", S::None, "X>")),
    (88, op("pop2", S::None, "XX>")),
    (89, op("dup", S::None, "*")),
    (90, op("dup_x1", S::None, "*")),
    (91, op("dup_x2", S::None, "*")),
    (92, op("dup2", S::None, "*")),
    (93, op("dup2_x1", S::None, "*")),
    (94, op("dup2_x2", S::None, "*")),
    (95, op("swap", S::None, "*")),
    (96, op("iadd", S::None, "II>I")),
    (97, op("ladd", S::None, "JJ>J")),
    (98, op("fadd", S::None, "FF>F")),
    (99, op("dadd", S::None, "DD>D")),
    (100, op("isub", S::None, "II>I")),
    (101, op("lsub", S::None, "JJ>J")),
    (102, op("fsub", S::None, "FF>F")),
    (103, op("dsub", S::None, "DD>D")),
    (104, op("imul", S::None, "II>I")),
    (105, op("lmul", S::None, "JJ>J")),
    (106, op("fmul", S::None, "FF>F")),
    (107, op("dmul", S::None, "DD>D")),
    (108, op("idiv", S::None, "II>I")),
    (109, op("ldiv", S::None, "JJ>J")),
    (110, op("fdiv", S::None, "FF>F")),
    (111, op("ddiv", S::None, "DD>D")),
    (112, op("irem", S::None, "II>I")),
    (113, op("lrem", S::None, "JJ>J")),
    (114, op("frem", S::None, "FF>F")),
    (115, op("drem", S::None, "DD>D")),
    (116, op("ineg", S::None, "I>I")),
    (117, op("lneg", S::None, "J>J")),
    (118, op("fneg", S::None, "F>F")),
    (119, op("dneg", S::None, "D>D")),
    (120, op("ishl", S::None, "II>I")),
    (121, op("lshl", S::None, "JI>J")),
    (122, op("ishr", S::None, "II>I")),
    (123, op("lshr", S::None, "JI>J")),
    (124, op("iushr", S::None, "II>I")),
    (125, op("lushr", S::None, "JI>J")),
    (126, op("iand", S::None, "II>I")),
    (127, op("land", S::None, "JJ>J")),
    (128, op("ior", S::None, "II>I")),
    (129, op("lor", S::None, "JJ>J")),
    (130, op("ixor", S::None, "II>I")),
    (131, op("lxor", S::None, "JJ>J")),
    (132, op("iinc", S::Iinc, ">")),
    (133, op("i2l", S::None, "I>J")),
    (134, op("i2f", S::None, "I>F")),
    (135, op("i2d", S::None, "I>D")),
    (136, op("l2i", S::None, "J>I")),
    (137, op("l2f", S::None, "J>F")),
    (138, op("l2d", S::None, "J>D")),
    (139, op("f2i", S::None, "F>I")),
    (140, op("f2l", S::None, "F>J")),
    (141, op("f2d", S::None, "F>D")),
    (142, op("d2i", S::None, "D>I")),
    (143, op("d2l", S::None, "D>J")),
    (144, op("d2f", S::None, "D>F")),
    (145, op("i2b", S::None, "I>I")),
    (146, op("i2c", S::None, "I>I")),
    (147, op("i2s", S::None, "I>I")),
    (148, op("lcmp", S::None, "JJ>I")),
    (149, op("fcmpl", S::None, "FF>I")),
    (150, op("fcmpg", S::None, "FF>I")),
    (151, op("dcmpl", S::None, "DD>I")),
    (152, op("dcmpg", S::None, "DD>I")),
    (153, op("ifeq", S::Branch16, "I>")),
    (154, op("ifne", S::Branch16, "I>")),
    (155, op("iflt", S::Branch16, "I>")),
    (156, op("ifge", S::Branch16, "I>")),
    (157, op("ifgt", S::Branch16, "I>")),
    (158, op("ifle", S::Branch16, "I>")),
    (159, op("if_icmpeq", S::Branch16, "II>")),
    (160, op("if_icmpne", S::Branch16, "II>")),
    (161, op("if_icmplt", S::Branch16, "II>")),
    (162, op("if_icmpge", S::Branch16, "II>")),
    (163, op("if_icmpgt", S::Branch16, "II>")),
    (164, op("if_icmple", S::Branch16, "II>")),
    (165, op("if_acmpeq", S::Branch16, "AA>")),
    (166, op("if_acmpne", S::Branch16, "AA>")),
    (167, op("goto", S::Branch16, ">")),
    (168, op("jsr", S::Branch16, "*")),
    (169, op("ret", S::Local, "*")),
    (170, op("tableswitch", S::TableSwitch, "I>")),
    (171, op("lookupswitch", S::LookupSwitch, "I>")),
    (172, op("ireturn", S::None, "I>")),
    (173, op("lreturn", S::None, "J>")),
    (174, op("freturn", S::None, "F>")),
    (175, op("dreturn", S::None, "D>")),
    (176, op("areturn", S::None, "A>")),
    (177, op("return", S::None, ">")),
    (178, op("getstatic", S::CpU16, "*")),
    (179, op("putstatic", S::CpU16, "*")),
    (180, op("getfield", S::CpU16, "*")),
    (181, op("putfield", S::CpU16, "*")),
    (182, op("invokevirtual", S::CpU16, "*")),
    (183, op("invokespecial", S::CpU16, "*")),
    (184, op("invokestatic", S::CpU16, "*")),
    (185, op("invokeinterface", S::InvokeInterface, "*")),
    (186, op("invokedynamic", S::InvokeDynamic, "*")),
    (187, op("new", S::CpU16, "*")),
    (188, op("newarray", S::NewArray, "*")),
    (189, op("anewarray", S::CpU16, "*")),
    (190, op("arraylength", S::None, "A>I")),
    (191, op("athrow", S::None, "A>")),
    (192, op("checkcast", S::CpU16, "*")),
    (193, op("instanceof", S::CpU16, "A>I")),
    (194, op("monitorenter", S::None, "A>")),
    (195, op("monitorexit", S::None, "A>")),
    (196, op("wide", S::Wide, "*")),
    (197, op("multianewarray", S::MultiANewArray, "*")),
    (198, op("ifnull", S::Branch16, "A>")),
    (199, op("ifnonnull", S::Branch16, "A>")),
    (200, op("goto_w", S::Branch32, ">")),
    (201, op("jsr_w", S::Branch32, "*")),
]);

/// Opcode constants used by name elsewhere.
#[allow(missing_docs)]
pub mod op {
    pub const NOP: u8 = 0;
    pub const ACONST_NULL: u8 = 1;
    pub const LDC: u8 = 18;
    pub const LDC_W: u8 = 19;
    pub const LDC2_W: u8 = 20;
    pub const ILOAD: u8 = 21;
    pub const ALOAD: u8 = 25;
    pub const ILOAD_0: u8 = 26;
    pub const ALOAD_0: u8 = 42;
    pub const ALOAD_3: u8 = 45;
    pub const AALOAD: u8 = 50;
    pub const ISTORE: u8 = 54;
    pub const ASTORE: u8 = 58;
    pub const ISTORE_0: u8 = 59;
    pub const ASTORE_3: u8 = 78;
    pub const POP: u8 = 87;
    pub const DUP: u8 = 89;
    pub const DUP_X1: u8 = 90;
    pub const DUP_X2: u8 = 91;
    pub const DUP2: u8 = 92;
    pub const DUP2_X1: u8 = 93;
    pub const DUP2_X2: u8 = 94;
    pub const SWAP: u8 = 95;
    pub const IINC: u8 = 132;
    pub const IFEQ: u8 = 153;
    pub const IF_ACMPNE: u8 = 166;
    pub const GOTO: u8 = 167;
    pub const JSR: u8 = 168;
    pub const RET: u8 = 169;
    pub const TABLESWITCH: u8 = 170;
    pub const LOOKUPSWITCH: u8 = 171;
    pub const IRETURN: u8 = 172;
    pub const RETURN: u8 = 177;
    pub const GETSTATIC: u8 = 178;
    pub const PUTSTATIC: u8 = 179;
    pub const GETFIELD: u8 = 180;
    pub const PUTFIELD: u8 = 181;
    pub const INVOKEVIRTUAL: u8 = 182;
    pub const INVOKESPECIAL: u8 = 183;
    pub const INVOKESTATIC: u8 = 184;
    pub const INVOKEINTERFACE: u8 = 185;
    pub const INVOKEDYNAMIC: u8 = 186;
    pub const NEW: u8 = 187;
    pub const NEWARRAY: u8 = 188;
    pub const ANEWARRAY: u8 = 189;
    pub const ATHROW: u8 = 191;
    pub const CHECKCAST: u8 = 192;
    pub const WIDE: u8 = 196;
    pub const MULTIANEWARRAY: u8 = 197;
    pub const IFNULL: u8 = 198;
    pub const IFNONNULL: u8 = 199;
    pub const GOTO_W: u8 = 200;
    pub const JSR_W: u8 = 201;
}

/// How control leaves an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction only.
    Next,
    /// May branch or fall through (`if*`).
    Conditional,
    /// Always branches (`goto`, `goto_w`).
    Goto,
    /// A switch: branches to one of its targets.
    Switch,
    /// Leaves the method (`*return`, `athrow`).
    Exit,
    /// `jsr`/`jsr_w`.
    Jsr,
    /// `ret`.
    Ret,
}

/// The control flow of `opcode`, computed.
const fn flow_of(opcode: u8) -> Flow {
    match opcode {
        153..=166 | op::IFNULL | op::IFNONNULL => Flow::Conditional,
        op::GOTO | op::GOTO_W => Flow::Goto,
        op::TABLESWITCH | op::LOOKUPSWITCH => Flow::Switch,
        172..=177 | op::ATHROW => Flow::Exit,
        op::JSR | op::JSR_W => Flow::Jsr,
        op::RET => Flow::Ret,
        _ => Flow::Next,
    }
}

/// [`flow_of`] of every opcode, built at compile time: the analyses ask it
/// of every instruction they visit, and a load is cheaper than the chain of
/// range checks the `match` compiles to.
static FLOWS: [Flow; 256] = {
    let mut t = [Flow::Next; 256];
    let mut o = 0;
    while o < 256 {
        t[o] = flow_of(o as u8);
        o += 1;
    }
    t
};

/// The control flow of `opcode`.
#[inline]
pub fn flow(opcode: u8) -> Flow {
    FLOWS[opcode as usize]
}

/// The conditional branch with the opposite condition (`ifeq` ↔ `ifne` ...).
pub fn invert_condition(opcode: u8) -> Option<u8> {
    match opcode {
        153..=166 => Some(if (opcode - 153).is_multiple_of(2) {
            opcode + 1
        } else {
            opcode - 1
        }),
        op::IFNULL => Some(op::IFNONNULL),
        op::IFNONNULL => Some(op::IFNULL),
        _ => None,
    }
}

/// True for the `*store*` family (which write a local variable).
pub fn is_store(opcode: u8) -> bool {
    (op::ISTORE..=op::ASTORE_3).contains(&opcode)
}

/// The stack slots opcode `o` pops and pushes by the table's `pops>pushes`
/// (a long or double counts two), `None` where the table says `*`. The
/// strings are read once, into a table.
pub fn slot_effect(o: u8) -> Option<(u8, u8)> {
    static SLOTS: std::sync::LazyLock<[Option<(u8, u8)>; 256]> = std::sync::LazyLock::new(|| {
        std::array::from_fn(|o| {
            let spec = OPCODES[o].stack;
            let (pops, pushes) = spec.split_once('>')?;
            let size = |c: u8| if c == b'J' || c == b'D' { 2 } else { 1 };
            Some((pops.bytes().map(size).sum(), pushes.bytes().map(size).sum()))
        })
    });
    SLOTS[o as usize]
}

/// How many stack slots `dup`..`swap` (opcode `o`) reads.
pub fn shuffle_depth(o: u8) -> usize {
    match o {
        op::DUP => 1,
        op::DUP_X1 | op::DUP2 | op::SWAP => 2,
        op::DUP_X2 | op::DUP2_X1 => 3,
        _ => 4,
    }
}

/// Applies `dup`..`swap` (opcode `o`) to a stack of slots (top last), which
/// must hold at least [`shuffle_depth`] slots.
pub fn shuffle_slots<T: Copy>(s: &mut Vec<T>, o: u8) {
    let n = s.len();
    match o {
        op::DUP => s.push(s[n - 1]),
        op::DUP_X1 => s.insert(n - 2, s[n - 1]),
        op::DUP_X2 => s.insert(n - 3, s[n - 1]),
        op::DUP2 => s.extend_from_within(n - 2..),
        op::DUP2_X1 => {
            let (b, a) = (s[n - 2], s[n - 1]);
            s.splice(n - 3..n - 3, [b, a]);
        }
        op::DUP2_X2 => {
            let (b, a) = (s[n - 2], s[n - 1]);
            s.splice(n - 4..n - 4, [b, a]);
        }
        _ => s.swap(n - 1, n - 2),
    }
}

/// [`short_form`], computed.
const fn short_form_of(opcode: u8) -> Option<(u8, u16)> {
    match opcode {
        26..=45 => Some((21 + (opcode - 26) / 4, ((opcode - 26) % 4) as u16)),
        59..=78 => Some((54 + (opcode - 59) / 4, ((opcode - 59) % 4) as u16)),
        _ => None,
    }
}

/// [`short_form_of`] of every opcode, built at compile time (asked of every
/// instruction by `init_calls`' linear pass and the frame analyses).
static SHORT_FORMS: [Option<(u8, u16)>; 256] = {
    let mut t = [None; 256];
    let mut o = 0;
    while o < 256 {
        t[o] = short_form_of(o as u8);
        o += 1;
    }
    t
};

/// For the short forms `xload_n`/`xstore_n`: the long-form opcode and the index.
#[inline]
pub fn short_form(opcode: u8) -> Option<(u8, u16)> {
    SHORT_FORMS[opcode as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_table_matches_the_rules() {
        for o in 0..=255u8 {
            assert_eq!(flow(o), flow_of(o), "opcode {o}");
        }
        assert_eq!(flow(op::IFNULL), Flow::Conditional);
        assert_eq!(flow(op::GOTO_W), Flow::Goto);
        assert_eq!(flow(op::LOOKUPSWITCH), Flow::Switch);
        assert_eq!(flow(op::ATHROW), Flow::Exit);
        assert_eq!(flow(op::RETURN), Flow::Exit);
        assert_eq!(flow(op::JSR_W), Flow::Jsr);
        assert_eq!(flow(op::RET), Flow::Ret);
        assert_eq!(flow(op::NOP), Flow::Next);
    }

    #[test]
    fn short_form_table_matches_the_rules() {
        for o in 0..=255u8 {
            assert_eq!(short_form(o), short_form_of(o), "opcode {o}");
        }
        assert_eq!(short_form(op::ALOAD_0), Some((op::ALOAD, 0)));
        assert_eq!(short_form(op::ALOAD_3), Some((op::ALOAD, 3)));
        assert_eq!(short_form(op::ASTORE_3), Some((op::ASTORE, 3)));
        assert_eq!(short_form(op::ILOAD), None);
        assert_eq!(short_form(op::ISTORE), None);
    }

    #[test]
    fn table_has_every_defined_opcode() {
        let defined = OPCODES.iter().filter(|o| o.shape != Shape::Invalid).count();
        assert_eq!(defined, 202);
        assert_eq!(OPCODES[op::GOTO_W as usize].name, "goto_w");
        assert_eq!(
            OPCODES[op::INVOKEDYNAMIC as usize].shape,
            Shape::InvokeDynamic
        );
    }

    #[test]
    fn inversions_pair_up() {
        for opc in (153..=166).chain([op::IFNULL, op::IFNONNULL]) {
            let inv = invert_condition(opc).unwrap();
            assert_ne!(inv, opc);
            assert_eq!(invert_condition(inv), Some(opc));
        }
    }

    #[test]
    fn short_forms() {
        assert_eq!(short_form(42), Some((op::ALOAD, 0)));
        assert_eq!(short_form(33), Some((22, 3)));
        assert_eq!(short_form(78), Some((op::ASTORE, 3)));
        assert_eq!(short_form(21), None);
    }
}
