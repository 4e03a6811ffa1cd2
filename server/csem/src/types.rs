//! C types as gcc lays them out on LP64 x86-64, and the integer conversion rules.

/// The integer types of the model. `char` is signed on x86-64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntKind {
    Bool,
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LongLong,
    ULongLong,
}

impl IntKind {
    pub fn bits(self) -> u32 {
        match self {
            IntKind::Bool | IntKind::Char | IntKind::SChar | IntKind::UChar => 8,
            IntKind::Short | IntKind::UShort => 16,
            IntKind::Int | IntKind::UInt => 32,
            _ => 64,
        }
    }
    pub fn size(self) -> u64 {
        u64::from(self.bits() / 8)
    }
    pub fn signed(self) -> bool {
        matches!(
            self,
            IntKind::Char
                | IntKind::SChar
                | IntKind::Short
                | IntKind::Int
                | IntKind::Long
                | IntKind::LongLong
        )
    }
    /// Conversion rank (C11 6.3.1.1); long and long long share a width but not a rank.
    pub fn rank(self) -> u32 {
        match self {
            IntKind::Bool => 0,
            IntKind::Char | IntKind::SChar | IntKind::UChar => 1,
            IntKind::Short | IntKind::UShort => 2,
            IntKind::Int | IntKind::UInt => 3,
            IntKind::Long | IntKind::ULong => 4,
            IntKind::LongLong | IntKind::ULongLong => 5,
        }
    }
    pub fn to_unsigned(self) -> IntKind {
        match self {
            IntKind::Char | IntKind::SChar => IntKind::UChar,
            IntKind::Short => IntKind::UShort,
            IntKind::Int => IntKind::UInt,
            IntKind::Long => IntKind::ULong,
            IntKind::LongLong => IntKind::ULongLong,
            k => k,
        }
    }
    /// Integer promotion: every type of rank below int fits in int.
    pub fn promote(self) -> IntKind {
        if self.rank() < 3 {
            IntKind::Int
        } else {
            self
        }
    }
    pub fn mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }
    /// Truncate or extend raw bits to this type's canonical representation
    /// (the low `bits` bits; `_Bool` normalises to 0/1 elsewhere).
    pub fn wrap(self, v: u64) -> u64 {
        v & self.mask()
    }
    /// The mathematical value of canonical bits of this type.
    pub fn value(self, bits: u64) -> i128 {
        let b = bits & self.mask();
        if self.signed() && self.bits() < 128 && (b >> (self.bits() - 1)) & 1 == 1 {
            i128::from(b) - (1i128 << self.bits())
        } else {
            i128::from(b)
        }
    }
    pub fn min(self) -> i128 {
        if self.signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }
    pub fn max(self) -> i128 {
        if self == IntKind::Bool {
            1
        } else if self.signed() {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            IntKind::Bool => "_Bool",
            IntKind::Char => "char",
            IntKind::SChar => "signed char",
            IntKind::UChar => "unsigned char",
            IntKind::Short => "short",
            IntKind::UShort => "unsigned short",
            IntKind::Int => "int",
            IntKind::UInt => "unsigned int",
            IntKind::Long => "long",
            IntKind::ULong => "unsigned long",
            IntKind::LongLong => "long long",
            IntKind::ULongLong => "unsigned long long",
        }
    }
}

/// The floating types of the model: IEEE-754 binary32 and binary64, as
/// SSE computes them on x86-64 (`long double`, the x87's 80 bits, is not
/// modelled). A floating value travels through the model as the bits of
/// its encoding in an unsigned integer of its width, its carrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    Float,
    Double,
}

impl FloatKind {
    /// The unsigned integer type whose bits hold a value of this type.
    pub fn carrier(self) -> IntKind {
        match self {
            FloatKind::Float => IntKind::UInt,
            FloatKind::Double => IntKind::ULong,
        }
    }
    pub fn size(self) -> u64 {
        self.carrier().size()
    }
    pub fn name(self) -> &'static str {
        match self {
            FloatKind::Float => "float",
            FloatKind::Double => "double",
        }
    }
    /// The value of the bits `bits` (float widened exactly to double).
    pub fn value(self, bits: u64) -> f64 {
        match self {
            FloatKind::Float => f64::from(f32::from_bits(bits as u32)),
            FloatKind::Double => f64::from_bits(bits),
        }
    }
    /// The bits of `v` rounded to this type (to nearest, ties to even).
    pub fn bits(self, v: f64) -> u64 {
        match self {
            FloatKind::Float => u64::from((v as f32).to_bits()),
            FloatKind::Double => v.to_bits(),
        }
    }
}

/// The common floating type of two arithmetic operands, when either is
/// floating (C11 6.3.1.8: double if either is, else float).
pub fn usual_float(a: &Type, b: &Type) -> Option<FloatKind> {
    match (a, b) {
        (Type::Float(FloatKind::Double), _) | (_, Type::Float(FloatKind::Double)) => {
            Some(FloatKind::Double)
        }
        (Type::Float(_), _) | (_, Type::Float(_)) => Some(FloatKind::Float),
        _ => None,
    }
}

/// Usual arithmetic conversions (C11 6.3.1.8) on two promoted integer types.
pub fn usual_arith(a: IntKind, b: IntKind) -> IntKind {
    let (a, b) = (a.promote(), b.promote());
    if a == b {
        return a;
    }
    if a.signed() == b.signed() {
        return if a.rank() >= b.rank() { a } else { b };
    }
    let (s, u) = if a.signed() { (a, b) } else { (b, a) };
    if u.rank() >= s.rank() {
        u
    } else if s.bits() > u.bits() {
        s
    } else {
        s.to_unsigned()
    }
}

pub type StructId = usize;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Type {
    #[default]
    Void,
    Int(IntKind),
    Float(FloatKind),
    Ptr(Box<Type>),
    /// `None` length: an incomplete array (`int a[]`, only as a parameter or with an initializer).
    Array(Box<Type>, Option<u64>),
    Struct(StructId),
    Func(Box<FuncType>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncType {
    pub ret: Type,
    pub params: Vec<Type>,
    pub variadic: bool,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: Type,
    pub offset: u64,
}

#[derive(Clone, Debug, Default)]
pub struct StructDef {
    pub name: String,
    pub is_union: bool,
    /// `None` until the definition is seen (a forward declaration).
    pub fields: Option<Vec<Field>>,
    pub size: u64,
    pub align: u64,
}

impl Type {
    pub const INT: Type = Type::Int(IntKind::Int);
    pub fn int(k: IntKind) -> Type {
        Type::Int(k)
    }
    pub fn ptr_to(t: Type) -> Type {
        Type::Ptr(Box::new(t))
    }
    pub fn as_int(&self) -> Option<IntKind> {
        match self {
            Type::Int(k) => Some(*k),
            _ => None,
        }
    }
    pub fn as_float(&self) -> Option<FloatKind> {
        match self {
            Type::Float(k) => Some(*k),
            _ => None,
        }
    }
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Float(_) | Type::Ptr(_))
    }
    pub fn is_arithmetic(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Float(_))
    }
    /// The type as memory holds it: a floating type as its carrier.
    pub fn in_memory(&self) -> Type {
        match self {
            Type::Float(k) => Type::Int(k.carrier()),
            t => t.clone(),
        }
    }
    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Ptr(t) => Some(t),
            _ => None,
        }
    }
    pub fn size(&self, structs: &[StructDef]) -> Option<u64> {
        match self {
            Type::Void | Type::Func(_) => None,
            Type::Int(k) => Some(k.size()),
            Type::Float(k) => Some(k.size()),
            Type::Ptr(_) => Some(8),
            Type::Array(e, Some(n)) => e.size(structs).map(|s| s * n),
            Type::Array(_, None) => None,
            Type::Struct(id) => structs[*id].fields.as_ref().map(|_| structs[*id].size),
        }
    }
    pub fn align(&self, structs: &[StructDef]) -> u64 {
        match self {
            Type::Int(k) => k.size(),
            Type::Float(k) => k.size(),
            Type::Ptr(_) => 8,
            Type::Array(e, _) => e.align(structs),
            Type::Struct(id) => structs[*id].align.max(1),
            _ => 1,
        }
    }
    pub fn display(&self, structs: &[StructDef]) -> String {
        match self {
            Type::Void => "void".into(),
            Type::Int(k) => k.name().into(),
            Type::Float(k) => k.name().into(),
            Type::Ptr(t) => format!("{}*", t.display(structs)),
            Type::Array(t, Some(n)) => format!("{}[{n}]", t.display(structs)),
            Type::Array(t, None) => format!("{}[]", t.display(structs)),
            Type::Struct(id) => {
                let s = &structs[*id];
                format!("{} {}", if s.is_union { "union" } else { "struct" }, s.name)
            }
            Type::Func(_) => "function".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_arithmetic_conversions_follow_lp64() {
        use IntKind::*;
        assert_eq!(usual_arith(Char, Short), Int);
        assert_eq!(usual_arith(Int, UInt), UInt);
        assert_eq!(usual_arith(Long, UInt), Long);
        assert_eq!(usual_arith(LongLong, ULong), ULongLong);
        assert_eq!(usual_arith(ULong, LongLong), ULongLong);
        assert_eq!(usual_arith(UChar, UShort), Int);
    }

    #[test]
    fn values_of_bits() {
        assert_eq!(IntKind::Int.value(0xffff_ffff), -1);
        assert_eq!(IntKind::UInt.value(0xffff_ffff), 4294967295);
        assert_eq!(IntKind::Char.value(0x80), -128);
        assert_eq!(IntKind::Long.min(), i128::from(i64::MIN));
    }
}

/// What a cast from `from` to `to` does in the model (C11 6.3): the one
/// place both back ends take it from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// To `void`: the value is discarded.
    Discard,
    /// Between integer types: wrap-around or sign extension as gcc does.
    Integer(IntKind, IntKind),
    /// A pointer to `_Bool`: whether it is not null.
    PointerToBool,
    /// Between pointer types: the same object and offset.
    Pointer,
    /// An integer to a floating type (rounded to nearest).
    IntToFloat(IntKind, FloatKind),
    /// A floating value to an integer type: truncated toward zero; a value
    /// out of the type's range (or NaN) is undefined behaviour; to `_Bool`,
    /// whether it is not zero.
    FloatToInt(FloatKind, IntKind),
    /// Between floating types (rounded to nearest).
    FloatToFloat(FloatKind, FloatKind),
    /// Anything else (pointers to and from integers, structs): outside the model.
    Unsupported,
}

impl Conversion {
    pub fn of(from: &Type, to: &Type) -> Conversion {
        match (from, to) {
            (_, Type::Void) => Conversion::Discard,
            (Type::Int(f), Type::Int(t)) => Conversion::Integer(*f, *t),
            (Type::Int(f), Type::Float(t)) => Conversion::IntToFloat(*f, *t),
            (Type::Float(f), Type::Int(t)) => Conversion::FloatToInt(*f, *t),
            (Type::Float(f), Type::Float(t)) => Conversion::FloatToFloat(*f, *t),
            (Type::Ptr(_), Type::Int(IntKind::Bool)) => Conversion::PointerToBool,
            (Type::Ptr(_), Type::Ptr(_)) => Conversion::Pointer,
            _ => Conversion::Unsupported,
        }
    }
}
