" Vim autoload file for editing compressed files.
" Maintainer: Bram Moolenaar <Bram@vim.org>

" Function to check that executing "cmd [-f]" works.
" The result is cached in s:have_"cmd" for speed.
fun s:check(cmd)
  let name = substitute(a:cmd, '\(\S*\).*', '\1', '')
  exe "return s:have_" . name
endfun

function! gzip#read(cmd)
  if !s:check(a:cmd)
    return
  endif
endfunction

vim9script
# Tells whether a buffer is compressed.
def Compressed(buf: number): bool
  return getbufvar(buf, 'gzip') != ''
enddef
