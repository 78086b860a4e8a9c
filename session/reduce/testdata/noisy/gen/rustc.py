out = ['use std::collections::HashMap;', 'use std::fmt::Write;', 'use std::io::Read;', '']
for i in range(40):
    if i % 4 == 0:
        out.append(f'fn parse_{i}(input: &str) -> Option<u32> {{\n    let mut total = 0;\n    let unused_{i} = input.len();\n    for c in input.chars() {{\n        total += c as u32;\n    }}\n    Some(total)\n}}\n')
    elif i % 4 == 1:
        out.append(f'fn table_{i}() -> HashMap<String, u32> {{\n    let mut m = HashMap::new();\n    let mut count = 0;\n    m.insert("k{i}".to_string(), {i});\n    m\n}}\n')
    elif i % 4 == 2:
        out.append(f'#[allow(dead_code)]\nstruct Config{i} {{\n    name: String,\n    retries: u32,\n}}\n\nfn make_config_{i}(name: &str) -> Config{i} {{\n    Config{i} {{ name: name.to_string(), retries: 3 }}\n}}\n')
    else:
        out.append(f'fn check_{i}(v: Vec<u32>) -> bool {{\n    let Result = v.len() > {i};\n    return Result;\n}}\n')
out.append('fn main() {\n    let cfg = make_config_2("svc");\n    let n: u32 = parse_0("abc").unwrap();\n    let label: String = n;\n    println!("{} {}", cfg.name, label);\n    let missing = lookup_timeout(&cfg);\n}\n')
open('src/main.rs','w').write('\n'.join(out))
