//! Enums whose variants have stable snake_case names ([`Entry`](crate::Entry),
//! [`ParseErrorKind`](crate::ParseErrorKind), [`Check`](crate::diagnostic::Check)): one macro writes
//! the list of every variant, the names both ways and `Display`, so that none of them can
//! forget a variant.

/// Declares a fieldless enum whose variants have stable names: the enum; `ALL`, every variant
/// in order; `name` and `from_name`; `Display`, which shows the name. With
/// `unknown Type("what", "whats")` after the enum, also `FromStr` and `Type`, the error for a
/// name that is no variant's: "unknown what `x`; the whats are a, b, c".
///
/// `path` is how the enum is named from outside the crate, for the generated doc examples.
#[doc(hidden)]
#[macro_export]
macro_rules! named_enum {
    (
        path $path:literal;
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_attr:meta])* $variant:ident = $text:literal, )*
        }
        $( unknown $unknown:ident($what:literal, $plural:literal); )?
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $( $(#[$variant_attr])* $variant, )*
        }

        impl $name {
            #[doc = "Every variant, in declaration order."]
            #[doc = ""]
            #[doc = "```"]
            #[doc = concat!("let all = ", $path, "::ALL;")]
            #[doc = "assert!(all.iter().enumerate().all(|(i, v)| all[..i].iter().all(|w| w != v)));"]
            #[doc = "```"]
            pub const ALL: [$name; <[()]>::len(&[$($crate::named_enum!(@unit $variant)),*])] =
                [$($name::$variant),*];

            #[doc = "The stable snake_case name."]
            #[doc = ""]
            #[doc = "```"]
            #[doc = concat!("let first = ", $path, "::ALL[0];")]
            #[doc = "assert!(first.name().bytes().all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit()));"]
            #[doc = "```"]
            pub const fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )*
                }
            }

            #[doc = "The variant named `name`, if there is one."]
            #[doc = ""]
            #[doc = "```"]
            #[doc = concat!("let first = ", $path, "::ALL[0];")]
            #[doc = concat!("assert_eq!(", $path, "::from_name(first.name()), Some(first));")]
            #[doc = concat!("assert_eq!(", $path, "::from_name(\"No such name\"), None);")]
            #[doc = "```"]
            pub fn from_name(name: &str) -> Option<$name> {
                $name::ALL.into_iter().find(|variant| variant.name() == name)
            }
        }

        #[doc = "Shows the name."]
        #[doc = ""]
        #[doc = "```"]
        #[doc = concat!("let first = ", $path, "::ALL[0];")]
        #[doc = "assert_eq!(first.to_string(), first.name());"]
        #[doc = "```"]
        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        $(
            #[doc = concat!("Reads a name, as [`", stringify!($name), "::from_name`] does, with an error that lists the names.")]
            #[doc = ""]
            #[doc = "```"]
            #[doc = concat!("let first = ", $path, "::ALL[0];")]
            #[doc = concat!("assert_eq!(first.name().parse::<", $path, ">(), Ok(first));")]
            #[doc = concat!("let err = \"No such name\".parse::<", $path, ">().unwrap_err();")]
            #[doc = concat!("assert!(err.to_string().starts_with(\"unknown ", $what, " `No such name`; the ", $plural, " are \"));")]
            #[doc = "```"]
            impl ::std::str::FromStr for $name {
                type Err = $unknown;

                fn from_str(name: &str) -> Result<$name, $unknown> {
                    $name::from_name(name).ok_or_else(|| $unknown {
                        name: name.to_owned(),
                    })
                }
            }

            #[doc = concat!("A name that is no ", $what, "'s name, from parsing a [`", stringify!($name), "`].")]
            #[doc = ""]
            #[doc = "```"]
            #[doc = concat!("assert!(\"No such name\".parse::<", $path, ">().is_err());")]
            #[doc = "```"]
            #[derive(Clone, Debug, PartialEq, Eq)]
            pub struct $unknown {
                name: String,
            }

            impl $unknown {
                #[doc = "The name that was given."]
                #[doc = ""]
                #[doc = "```"]
                #[doc = concat!("assert_eq!(\"x\".parse::<", $path, ">().unwrap_err().name(), \"x\");")]
                #[doc = "```"]
                pub fn name(&self) -> &str {
                    &self.name
                }
            }

            #[doc = concat!("\"unknown ", $what, " `name`; the ", $plural, " are …\", listing every name.")]
            impl ::std::fmt::Display for $unknown {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    write!(f, concat!("unknown ", $what, " `{}`; the ", $plural, " are "), self.name)?;
                    for (i, variant) in $name::ALL.iter().enumerate() {
                        let separator = if i == 0 { "" } else { ", " };
                        write!(f, "{separator}{variant}")?;
                    }
                    Ok(())
                }
            }

            impl ::std::error::Error for $unknown {}
        )?
    };
    (@unit $variant:ident) => {
        ()
    };
}
