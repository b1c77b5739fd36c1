import java.util.*;
public aspect Syn {
    before(): call(* !Main.Base+.m(..)) { System.out.println("notBase+ " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): call(* (!Main.Sub).m(..)) { System.out.println("notSub " + thisJoinPointStaticPart.getSignature().toLongString()); }
    before(): execution(* *(List<? extends Number>)) { System.out.println("extendsNumber " + thisJoinPointStaticPart.getSignature()); }
    before(): execution(* *(List<? super Integer>)) { System.out.println("superInteger " + thisJoinPointStaticPart.getSignature()); }
    before(): execution(* *(List<?>)) { System.out.println("any? " + thisJoinPointStaticPart.getSignature()); }
    before(): execution(* *(List<String>)) { System.out.println("String " + thisJoinPointStaticPart.getSignature()); }
    before(): execution(* *(List)) { System.out.println("raw " + thisJoinPointStaticPart.getSignature()); }
    before(): execution(* *(List<*>)) { System.out.println("star " + thisJoinPointStaticPart.getSignature()); }
    before(): call(int[].new(..)) { System.out.println("int[].new " + thisJoinPointStaticPart.getSignature()); }
    before(): call(*[].new(..)) { System.out.println("*[].new " + thisJoinPointStaticPart.getSignature()); }
    before(): call(String[].new(..)) { System.out.println("String[].new " + thisJoinPointStaticPart.getSignature()); }
}
